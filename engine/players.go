package engine

import (
	"github.com/nebulaengine/nebula/engine/input"

	"encoding/binary"
	"fmt"
	"slices"

	"github.com/nebulaengine/nebula/internal/binread"
)

// PlayerID names a player of a match, from 0 to MaxPlayers-1. A
// single-player game is player 0.
type PlayerID uint16

// MaxPlayers is the number of player IDs: a match has at most this many
// players, numbered 0 to MaxPlayers-1.
const MaxPlayers = 256

// Players is who plays at a tick: the players in the match, ascending by
// ID, each with the tick's input.Sample, and who joined and who left the
// match at the tick.
//
// Fixed systems read it (FixedContext.Players): Len and At walk the players
// in ascending order, Input and Has look one up, Joined and Left say who
// came and went at this tick. A tick hook changes it at the start of a tick
// (TickInfo.Players, in TickHook.BeginTick) with Join, Leave and SetInput:
// that is the tick boundary, so the tick's fixed systems see the change.
// The Players of an engine's world refuse changes at any other time, with
// an error.
//
// Each tick starts from the previous tick's players and their inputs (a
// remote player's input carries over until a hook sets another); player 0,
// the local player, gets the tick's local input (see TickInfo). Which
// players are in the match is simulated state: World.Hash covers it, and
// snapshots and States hold it with every player's latest input.
//
// The zero Players is an empty match that accepts changes. Once its slices
// have grown to the largest match, nothing allocates per tick.
type Players struct {
	ids    []PlayerID     // the players in the match, ascending
	inputs []input.Sample // inputs[i] is the input of ids[i]
	joined []PlayerID     // joined at this tick, ascending
	left   []PlayerID     // left at this tick, ascending
	locked bool           // changes are refused (an engine's, outside the tick's start)
	// local is the tick's local input, which player 0 joins with, or nil
	// (a zero input) when a hook owns the players.
	local *input.Sample
	// oldInputs makes readState read each input as input.KeyMouseWords
	// words (snapshot version 5 and older); set on the scratch Players a
	// snapshot is read into.
	oldInputs bool
}

// Len returns the number of players in the match.
func (p *Players) Len() int { return len(p.ids) }

// At returns the i-th player in ascending order of ID, 0 <= i < Len(), and
// its input at this tick. The input is the Players' own: read it, do not
// change it.
func (p *Players) At(i int) (PlayerID, *input.Sample) { return p.ids[i], &p.inputs[i] }

// find returns the index of id in ids and whether it is there.
func (p *Players) find(id PlayerID) (int, bool) { return slices.BinarySearch(p.ids, id) }

// Input returns id's input at this tick, or nil when id is not in the
// match. Read it, do not change it.
func (p *Players) Input(id PlayerID) *input.Sample {
	if i, ok := p.find(id); ok {
		return &p.inputs[i]
	}
	return nil
}

// Has reports whether id is in the match.
func (p *Players) Has(id PlayerID) bool {
	_, ok := p.find(id)
	return ok
}

// Joined returns the players who joined the match at this tick, ascending.
// The slice is valid during the tick.
func (p *Players) Joined() []PlayerID { return p.joined }

// Left returns the players who left the match at this tick, ascending. The
// slice is valid during the tick.
func (p *Players) Left() []PlayerID { return p.left }

// check returns why id cannot be changed by what ("join", "leave", "get an
// input"), or nil.
func (p *Players) check(id PlayerID, what string) error {
	switch {
	case int(id) >= MaxPlayers:
		return fmt.Errorf("engine: player %d cannot %s: out of range (players are 0 to %d)", id, what, MaxPlayers-1)
	case p.locked:
		return fmt.Errorf("engine: player %d cannot %s now: players join, leave and get inputs only at the start of a tick, in TickHook.BeginTick", id, what)
	}
	return nil
}

// Join adds id to the match, from this tick on, with a zero input (until
// SetInput); under the single-player default (the hook is not a
// PlayerOwner) player 0 joins with the tick's local input. It returns an error, and changes nothing, when id is out of
// range, already in the match, or left it at this tick (a player cannot
// leave and join in one tick).
func (p *Players) Join(id PlayerID) error {
	if err := p.check(id, "join"); err != nil {
		return err
	}
	i, in := p.find(id)
	switch {
	case in:
		return fmt.Errorf("engine: player %d cannot join: already in the match", id)
	case slices.Contains(p.left, id):
		return fmt.Errorf("engine: player %d cannot join: left the match at this tick (a player cannot leave and join in one tick)", id)
	}
	var input input.Sample
	if id == 0 && p.local != nil {
		input = *p.local
	}
	p.ids = slices.Insert(p.ids, i, id)
	p.inputs = slices.Insert(p.inputs, i, input)
	j, _ := slices.BinarySearch(p.joined, id)
	p.joined = slices.Insert(p.joined, j, id)
	return nil
}

// Leave removes id from the match at this tick: the tick's systems no
// longer see it, nor its input. It returns an error, and changes nothing,
// when id is out of range, not in the match, or joined it at this tick (a
// player cannot join and leave in one tick).
func (p *Players) Leave(id PlayerID) error {
	if err := p.check(id, "leave"); err != nil {
		return err
	}
	i, in := p.find(id)
	switch {
	case !in:
		return fmt.Errorf("engine: player %d cannot leave: not in the match", id)
	case slices.Contains(p.joined, id):
		return fmt.Errorf("engine: player %d cannot leave: joined the match at this tick (a player cannot join and leave in one tick)", id)
	}
	p.ids = slices.Delete(p.ids, i, i+1)
	p.inputs = slices.Delete(p.inputs, i, i+1)
	j, _ := slices.BinarySearch(p.left, id)
	p.left = slices.Insert(p.left, j, id)
	return nil
}

// SetInput sets id's input at this tick (and, unless set again, at the
// ticks after it). It returns an error, and changes nothing, when id is out
// of range or not in the match.
func (p *Players) SetInput(id PlayerID, in input.Sample) error {
	if err := p.check(id, "get an input"); err != nil {
		return err
	}
	i, ok := p.find(id)
	if !ok {
		return fmt.Errorf("engine: player %d cannot get an input: not in the match", id)
	}
	p.inputs[i] = in
	return nil
}

// startTick begins a tick: the players and inputs of the previous tick
// carry over, nobody has joined or left yet, and changes are accepted.
// local is the tick's local input, for player 0, or nil.
func (p *Players) startTick(local *input.Sample) {
	p.joined, p.left = p.joined[:0], p.left[:0]
	p.locked, p.local = false, local
}

// endStart ends the start of a tick: changes are refused until the next.
func (p *Players) endStart() {
	p.locked, p.local = true, nil
}

// copyPlayers makes dst's players and inputs a copy of src's, reusing dst's
// memory; dst's joined and left are emptied (they belong to a tick).
func copyPlayers(dst, src *Players) {
	copyInto(&dst.ids, src.ids)
	copyInto(&dst.inputs, src.inputs)
	dst.joined, dst.left = dst.joined[:0], dst.left[:0]
}

// appendState appends the players' part of a snapshot to b: the number of
// players (uint16), then each player's ID (uint16) and input (input.SampleWords
// uint64 words), ascending by ID.
func (p *Players) appendState(b []byte) []byte {
	b = binary.LittleEndian.AppendUint16(b, uint16(len(p.ids)))
	var words [input.SampleWords]uint64
	for i, id := range p.ids {
		b = binary.LittleEndian.AppendUint16(b, uint16(id))
		p.inputs[i].Words(&words)
		for _, v := range words {
			b = binary.LittleEndian.AppendUint64(b, v)
		}
	}
	return b
}

// readState decodes what appendState wrote into p (a zero Players),
// checking that the IDs are in range and ascending and every input valid.
func (p *Players) readState(r *binread.Reader) {
	at := r.Offset()
	n := int(r.U16("players"))
	nw := input.SampleWords
	if p.oldInputs {
		nw = input.KeyMouseWords
	}
	size := 2 + 8*nw
	switch {
	case r.Err() != nil:
		return
	case n > MaxPlayers:
		r.FailAt(at, "players", fmt.Errorf("%d players, at most %d", n, MaxPlayers))
		return
	case n*size > r.Left():
		r.FailAt(at, "players", fmt.Errorf("%w: %d players of %d bytes, %d bytes left", ErrSnapshotTruncated, n, size, r.Left()))
		return
	}
	p.ids = make([]PlayerID, n)
	p.inputs = make([]input.Sample, n)
	var words [input.SampleWords]uint64
	for i := range n {
		at := r.Offset()
		id := PlayerID(r.U16("player id"))
		switch {
		case r.Err() != nil:
		case int(id) >= MaxPlayers:
			r.FailAt(at, "player id", fmt.Errorf("player %d is out of range (players are 0 to %d)", id, MaxPlayers-1))
		case i > 0 && id <= p.ids[i-1]:
			r.FailAt(at, "player id", fmt.Errorf("player %d after player %d: the players are not ascending", id, p.ids[i-1]))
		}
		p.ids[i] = id
		at = r.Offset()
		for j := range nw {
			words[j] = r.U64("player input")
		}
		if r.Err() == nil {
			if err := p.inputs[i].SetWords(&words); err != nil {
				r.FailAt(at, "player input", fmt.Errorf("player %d: %v", id, err))
			}
		}
	}
}
