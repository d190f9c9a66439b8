package mix

import "math"

// blockFrames is the number of frames Mix works on at a time: the buses'
// gains for a block are worked out first, then each voice is added.
const blockFrames = 256

// Mix fills dst, interleaved stereo (left, right; its length even), with
// the next len(dst)/2 frames of the mix, after the commands queued before
// the call. Samples beyond [-1, 1] are clamped (Stats.Clipped). It is the
// audio side: call it from one goroutine (the device's callback, or a
// headless run's loop); it takes no lock and allocates nothing.
func (m *Mixer) Mix(dst []float32) {
	m.apply()
	m.calls++
	clear(dst)
	n := len(dst) / 2
	for off := 0; off < n; off += blockFrames {
		k := min(blockFrames, n-off)
		for b := range m.buses {
			g := &m.busGain[b]
			for i := range k {
				g[i] = m.buses[b].next()
			}
		}
		out := dst[2*off : 2*(off+k)]
		for s := range m.voices {
			switch v := &m.voices[s]; {
			case !v.active:
			case v.feed != nil:
				m.mixStream(s, out, k)
			default:
				m.mixVoice(s, out, k)
			}
		}
	}
	clipped := uint64(0)
	for i, v := range dst {
		if v > 1 || v < -1 {
			dst[i] = min(max(v, -1), 1)
			clipped++
		}
	}
	playing := int32(0)
	for s := range m.voices {
		if m.voices[s].active {
			playing++
		}
	}
	if clipped > 0 {
		m.clipped.Add(clipped)
	}
	m.frames.Add(uint64(n))
	m.playing.Store(playing)
}

// apply carries out the queued commands, in order.
func (m *Mixer) apply() {
	h, t := m.head.Load(), m.tail.Load()
	declick := frames(declickSeconds, m.rate)
	for ; h < t; h++ {
		c := &m.cmds[h%QueueSize]
		if c.op == opBus {
			m.buses[c.bus].to(c.vol, max(c.fade, declick))
			continue
		}
		v := &m.voices[c.slot]
		if c.op == opPlay {
			m.start(int(c.slot), c, declick)
			c.sound, c.feed = nil, nil // the queue keeps no sound alive
			continue
		}
		if !v.active || v.gen != c.gen {
			continue // it ended before the command came
		}
		switch c.op {
		case opStop:
			v.stopping = true
			v.left.to(0, max(c.fade, declick))
			v.right.to(0, max(c.fade, declick))
		case opSet:
			if v.stopping {
				continue
			}
			v.volume, v.pan = c.vol, c.pan
			l, r := v.gains()
			v.left.to(l, declick)
			v.right.to(r, declick)
		case opPitch:
			v.step = float64(c.pitch) * float64(v.rate) / float64(m.rate)
		}
	}
	m.head.Store(t)
}

// start starts the voice c plays in slot s.
func (m *Mixer) start(s int, c *command, declick int) {
	v := &m.voices[s]
	if v.active {
		m.ended[s].Store(v.gen) // replaced: cannot happen, the game reuses only ended slots
	}
	p := &c.params
	pitch := p.Pitch
	if pitch == 0 {
		pitch = 1
	}
	channels, rate := 0, 0
	if c.feed != nil {
		channels, rate = c.feed.channels, c.feed.rate
	} else {
		channels, rate = c.sound.Channels, c.sound.Rate
	}
	*v = voice{active: true, gen: c.gen, sound: c.sound, feed: c.feed, channels: channels, rate: rate, bus: p.Bus, loop: p.Loop,
		volume: p.Volume, pan: p.Pan, pos: c.start, step: float64(pitch) * float64(rate) / float64(m.rate)}
	if c.sound != nil {
		if nf := float64(c.sound.Frames()); v.pos >= nf {
			if !v.loop {
				m.end(s) // started past its end: nothing to play
				return
			}
			v.pos = math.Mod(v.pos, nf)
		}
	}
	l, r := v.gains()
	v.left.to(l, max(c.fade, declick))
	v.right.to(r, max(c.fade, declick))
}

// gains returns the voice's left and right output gains: a mono sound
// panned with constant power (panGains: each side 0.707 at the centre), a
// sound of two or more channels balanced (its left channel to the left at
// full volume until the pan passes the centre to the right, and the
// right likewise); channels past the second are left out.
func (v *voice) gains() (l, r float32) {
	if v.channels == 1 {
		return panGains(v.volume, v.pan)
	}
	return float32(v.volume * min(1, 1-v.pan)), float32(v.volume * min(1, 1+v.pan))
}

// end ends slot s's voice and tells the game's side.
func (m *Mixer) end(s int) {
	v := &m.voices[s]
	v.active = false
	v.sound = nil
	if v.feed != nil {
		v.feed.quit.Store(true) // its feeder closes the file and returns
		v.feed = nil
	}
	m.ended[s].Store(v.gen)
}

// mixVoice adds k frames of slot s's voice into out, stepping through the
// sound at its pitch with linear interpolation between its frames.
func (m *Mixer) mixVoice(s int, out []float32, k int) {
	v := &m.voices[s]
	snd := v.sound
	ch, smp := snd.Channels, snd.Samples
	nf := snd.Frames()
	bus := &m.busGain[v.bus]
	for i := range k {
		if v.pos >= float64(nf) {
			if !v.loop {
				m.end(s)
				return
			}
			v.pos = math.Mod(v.pos, float64(nf))
		}
		i0 := int(v.pos)
		frac := float32(v.pos - float64(i0))
		i1 := i0 + 1
		if i1 == nf {
			i1 = i0 // the last frame is held, not blended with silence
			if v.loop {
				i1 = 0
			}
		}
		a0, a1 := smp[i0*ch], smp[i1*ch]
		l := float32(a0 + float32(frac*float32(a1-a0)))
		r := l
		if ch > 1 {
			b0, b1 := smp[i0*ch+1], smp[i1*ch+1]
			r = float32(b0 + float32(frac*float32(b1-b0)))
		}
		g := bus[i]
		out[2*i] = float32(out[2*i] + float32(float32(l*v.left.next())*g))
		out[2*i+1] = float32(out[2*i+1] + float32(float32(r*v.right.next())*g))
		v.pos += v.step
		if v.stopping && v.left.left == 0 && v.left.cur == 0 {
			m.end(s)
			return
		}
	}
}
