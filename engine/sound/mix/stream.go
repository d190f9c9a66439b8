package mix

import (
	"fmt"
	"io"
	"math"
	"math/bits"
	"sync/atomic"
	"time"

	"github.com/nebulaengine/nebula/engine/sound/decode"
)

// A streamed voice's samples come through a ring: its feeder, a goroutine
// of its own, reads the file ahead into the ring, and the audio side
// reads the ring. The two share only the ring and atomic counters, the
// feeder alone writing written and the audio side alone writing read, so
// Mix still takes no lock, allocates nothing and reads no file.
const (
	// feedFrames is the most frames the feeder decodes at a time.
	feedFrames = 1024
	// feedPoll is how long the feeder waits when the ring is full before
	// looking again (a ring is at least half a second deep).
	feedPoll = 5 * time.Millisecond
)

// feeder reads a stream into a voice's ring.
type feeder struct {
	st       *decode.Stream
	channels int
	rate     int
	loop     bool
	first    int       // the frame it seeks to first
	ring     []float32 // size frames, interleaved as the stream's
	size     uint64    // frames, a power of two

	written atomic.Uint64 // frames written into the ring, from first (the feeder's)
	read    atomic.Uint64 // frames the voice is done with (the audio side's)
	done    atomic.Bool   // no more frames come: written is final
	quit    atomic.Bool   // the voice ended, or Close: return
	exited  chan struct{} // closed when the feeder has returned

	m *Mixer
}

// ringFrames returns the frames a stream of rate's ring holds: the power
// of two at or above half a second's.
func ringFrames(rate int) uint64 {
	return 1 << bits.Len(uint(rate/2-1))
}

// full reports whether f's ring is full or its stream has ended: the
// voice has all it can have for now.
func (f *feeder) full() bool {
	return f.done.Load() || f.written.Load()-f.read.Load() >= f.size
}

// run reads the stream into the ring until it ends (looping it by seeking
// to its start) or the voice does, then closes it.
func (f *feeder) run() {
	defer func() {
		f.st.Close()
		f.done.Store(true)
		f.m.streams.Add(-1)
		close(f.exited)
	}()
	if err := f.st.Seek(f.first); err != nil {
		f.m.streamErrors.Add(1)
		return
	}
	ch := f.channels
	buf := make([]float32, feedFrames*ch)
	empty := true // nothing read since the last seek: a loop of nothing ends
	for !f.quit.Load() {
		w := f.written.Load()
		room := f.size - (w - f.read.Load())
		if room == 0 {
			time.Sleep(feedPoll)
			continue
		}
		n, err := f.st.Read(buf[:min(room, feedFrames)*uint64(ch)])
		if err == io.EOF {
			if !f.loop || empty {
				return
			}
			if err := f.st.Seek(0); err != nil {
				f.m.streamErrors.Add(1)
				return
			}
			empty = true
			continue
		}
		if err != nil {
			f.m.streamErrors.Add(1)
			return
		}
		at := w % f.size
		k := min(uint64(n), f.size-at) // up to the ring's end, then from its start
		copy(f.ring[at*uint64(ch):], buf[:k*uint64(ch)])
		copy(f.ring, buf[k*uint64(ch):n*ch])
		f.written.Store(w + uint64(n))
		empty = empty && n == 0
	}
}

// PlayStream starts st with p, as Play does a sound, and returns its
// voice; the voice owns st, closing it when it ends (and now, on an
// error). A goroutine reads st ahead of the voice into a ring of at least
// half a second; the voice is silent until the ring first holds an
// eighth of a second, and when it runs dry (Stats.StreamUnderruns). A
// looping stream seeks to its start at its end; p.Start seeks part-way.
func (m *Mixer) PlayStream(st *decode.Stream, p Params) (Voice, error) {
	if st == nil {
		return Voice{}, fmt.Errorf("mix: PlayStream: no stream")
	}
	if err := p.Validate(); err != nil {
		st.Close()
		return Voice{}, err
	}
	nf := st.Frames()
	if nf == 0 {
		st.Close()
		return Voice{}, fmt.Errorf("mix: PlayStream %s: the stream has no frames", st.Name())
	}
	slot, err := m.takeSlot(st.Name())
	if err != nil {
		st.Close()
		return Voice{}, err
	}
	start := p.Start * float64(st.Rate())
	if p.Loop {
		start = math.Mod(start, float64(nf))
	}
	first := int(min(start, float64(nf))) // past the end of a stream that does not loop: it ends at once
	size := ringFrames(st.Rate())
	f := &feeder{st: st, channels: st.Channels(), rate: st.Rate(), loop: p.Loop, first: first,
		ring: make([]float32, size*uint64(st.Channels())), size: size, exited: make(chan struct{}), m: m}
	v := Voice{slot: uint16(slot), gen: m.gens[slot]}
	if !m.push(command{op: opPlay, slot: v.slot, gen: v.gen, feed: f, params: p,
		fade: frames(p.FadeIn, m.rate), start: start - float64(first)}) {
		st.Close()
		return Voice{}, fmt.Errorf("mix: PlayStream %s: the command queue is full (%d commands since the last Mix)", st.Name(), QueueSize)
	}
	m.used[slot] = true
	m.feeds[slot] = f
	m.streams.Add(1)
	go f.run()
	return v, nil
}

// Buffered reports whether every streamed voice playing has its ring full
// (or its stream read to its end): what a test or a headless render waits
// for before Mix, so that a stream plays the same samples on every run,
// however fast its file is read.
func (m *Mixer) Buffered() bool {
	for i, f := range m.feeds {
		if f == nil {
			continue
		}
		if m.ended[i].Load() == m.gens[i] {
			m.feeds[i] = nil // its voice ended: its feeder returns
			continue
		}
		if !f.full() {
			return false
		}
	}
	return true
}

// Close ends every stream: its goroutine returns and its file is closed,
// before Close returns; a voice that was streaming plays out what its ring
// holds and ends. Sounds play on as before; a later PlayStream streams
// anew.
func (m *Mixer) Close() {
	for i, f := range m.feeds {
		if f == nil {
			continue
		}
		f.quit.Store(true)
		<-f.exited
		m.feeds[i] = nil
	}
}

// mixStream adds k frames of slot s's streamed voice into out, as
// mixVoice does a sound's, reading its ring.
func (m *Mixer) mixStream(s int, out []float32, k int) {
	v := &m.voices[s]
	f := v.feed
	done := f.done.Load() // before written: when done, written is final
	w := f.written.Load()
	if !v.primed {
		if !done && w < f.size/4 {
			if v.stopping {
				m.end(s) // stopped before a sample came: nothing to fade
			}
			return
		}
		v.primed = true
	}
	ch, ring, mask := uint64(v.channels), f.ring, f.size-1
	bus := &m.busGain[v.bus]
	dry := false
	for i := range k {
		i0 := uint64(v.pos)
		i1 := i0 + 1
		if i1 >= w {
			switch {
			case done && i0 >= w:
				m.end(s) // the stream's end
				return
			case done:
				i1 = i0 // the last frame is held, not blended with silence
			default:
				// Dry: silent, its fades going on, its place kept.
				dry = true
				v.left.next()
				v.right.next()
				if v.stopping && v.left.left == 0 && v.left.cur == 0 {
					m.end(s)
					return
				}
				continue
			}
		}
		frac := float32(v.pos - float64(i0))
		j0, j1 := (i0&mask)*ch, (i1&mask)*ch
		a0, a1 := ring[j0], ring[j1]
		l := float32(a0 + float32(frac*float32(a1-a0)))
		r := l
		if ch > 1 {
			b0, b1 := ring[j0+1], ring[j1+1]
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
	f.read.Store(min(uint64(v.pos), w)) // the frames before are the feeder's again
	if dry && v.dryCall != m.calls {
		v.dryCall = m.calls
		m.underruns.Add(1)
	}
}
