package gameserver

import (
	"time"

	"github.com/nebulaengine/nebula/engine/netplay"
)

// mergeTraces returns a trace that calls every field of every trace in ts
// (nil traces and nil fields left out), in order; nil if none has any.
func mergeTraces(ts ...*netplay.ServerTrace) *netplay.ServerTrace {
	var all []*netplay.ServerTrace
	for _, t := range ts {
		if t != nil {
			all = append(all, t)
		}
	}
	if len(all) == 0 {
		return nil
	}
	if len(all) == 1 {
		return all[0]
	}
	var m netplay.ServerTrace
	var ticks []func(uint64, time.Duration)
	var resumed []func(uint64)
	var players []func(int, int)
	var read, written []func(int)
	var refused []func(string)
	var resync, desync []func()
	var logged []func(time.Duration, bool)
	for _, t := range all {
		if t.TickConfirmed != nil {
			ticks = append(ticks, t.TickConfirmed)
		}
		if t.PlayersChanged != nil {
			players = append(players, t.PlayersChanged)
		}
		if t.Resumed != nil {
			resumed = append(resumed, t.Resumed)
		}
		if t.BytesRead != nil {
			read = append(read, t.BytesRead)
		}
		if t.BytesWritten != nil {
			written = append(written, t.BytesWritten)
		}
		if t.HandshakeRefused != nil {
			refused = append(refused, t.HandshakeRefused)
		}
		if t.Resync != nil {
			resync = append(resync, t.Resync)
		}
		if t.Desync != nil {
			desync = append(desync, t.Desync)
		}
		if t.LogWritten != nil {
			logged = append(logged, t.LogWritten)
		}
	}
	if len(ticks) > 0 {
		m.TickConfirmed = func(tick uint64, took time.Duration) {
			for _, f := range ticks {
				f(tick, took)
			}
		}
	}
	if len(resumed) > 0 {
		m.Resumed = func(tick uint64) {
			for _, f := range resumed {
				f(tick)
			}
		}
	}
	if len(players) > 0 {
		m.PlayersChanged = func(p, s int) {
			for _, f := range players {
				f(p, s)
			}
		}
	}
	m.BytesRead, m.BytesWritten = fanInt(read), fanInt(written)
	if len(refused) > 0 {
		m.HandshakeRefused = func(reason string) {
			for _, f := range refused {
				f(reason)
			}
		}
	}
	m.Resync, m.Desync = fan(resync), fan(desync)
	if len(logged) > 0 {
		m.LogWritten = func(took time.Duration, synced bool) {
			for _, f := range logged {
				f(took, synced)
			}
		}
	}
	return &m
}

func fanInt(fs []func(int)) func(int) {
	if len(fs) == 0 {
		return nil
	}
	return func(n int) {
		for _, f := range fs {
			f(n)
		}
	}
}

func fan(fs []func()) func() {
	if len(fs) == 0 {
		return nil
	}
	return func() {
		for _, f := range fs {
			f()
		}
	}
}
