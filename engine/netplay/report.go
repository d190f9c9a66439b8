package netplay

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/nebulaengine/nebula/engine/netplay/wire"
)

// Percentiles summarises durations: the median, the 95th and 99th
// percentiles and the largest, to Latencies' resolution.
type Percentiles struct {
	Count         uint64        // how many durations
	P50, P95, P99 time.Duration // the median, the 95th and the 99th percentiles
	Max           time.Duration // the largest
}

func percentiles(l *Latencies) Percentiles {
	return Percentiles{Count: l.Count(), P50: l.Percentile(0.50), P95: l.Percentile(0.95), P99: l.Percentile(0.99), Max: l.Max()}
}

// String formats the percentiles as "p50 1.2ms p95 3.4ms p99 5.6ms".
func (p Percentiles) String() string {
	if p.Count == 0 {
		return "-"
	}
	return fmt.Sprintf("p50 %v p95 %v p99 %v", round(p.P50), round(p.P95), round(p.P99))
}

func round(d time.Duration) time.Duration {
	if d < time.Millisecond {
		return d.Round(time.Microsecond)
	}
	return d.Round(10 * time.Microsecond)
}

// Report is what a server reports at the end of a match.
type Report struct {
	Ticks uint64 // the last confirmed tick
	// ResumedAt is the tick a resumed server (ResumeServer) continued the
	// match from; 0 for a match the server started. Such a server ran
	// Ticks - ResumedAt ticks of the match, in Duration.
	ResumedAt uint64
	// Duration is this server's part of the match: from the match's
	// start, or from its resumption, to its end.
	Duration   time.Duration
	Desyncs    int // client hashes that differed from the server's
	Spectators int // spectators let in
	// TickTime is the server's time per tick: from the moment it began to
	// confirm the tick to the moment the tick had been simulated and
	// queued to every client.
	TickTime Percentiles
	// Players has one entry per client let in, players and spectators, in
	// the order they came, but for the earliest of those that left when
	// more than 256 have: those are only counted, in Omitted.
	Players []PlayerReport
	// Omitted counts the clients that left whose entries Players does not
	// hold (a server's memory does not grow with every client it served).
	Omitted int
}

// PlayerReport is one client's part of a match report.
type PlayerReport struct {
	Player    wire.PlayerID // the player ID (wire.NoPlayer for a spectator)
	Name      string        // the name the client gave
	Remote    string        // its address
	Spectator bool          // a spectator, not a player
	// JoinTick is the tick it joined at: 0 for a spectator, and for a
	// player that left before the tick it was to join at (it never
	// joined; LeftTick says when it left).
	JoinTick uint64
	// LeftTick is the tick a player left at (the first tick without it),
	// 0 if it stayed to the end.
	LeftTick uint64
	// Inputs counts the ticks whose input arrived in time; Substituted
	// those for which the server used the player's previous input; Late
	// the inputs that arrived after their tick was confirmed.
	Inputs, Substituted, Late uint64
	// Latency is, for the inputs that arrived in time, the time from an
	// input's arrival to the server having queued the confirmed tick that
	// holds it to every client.
	Latency Percentiles
	// Hashes counts the client's hashes compared, Desyncs those that
	// differed.
	Hashes, Desyncs int
	// BytesUp and BytesDown are the bytes the client sent and was sent
	// (the protocol's, without TCP/IP headers; over UDP, the packets'
	// payloads, resends included), over Connected.
	BytesUp, BytesDown int64
	Connected          time.Duration // how long it was connected
}

// UpRate and DownRate are the client's bytes per second each way: over
// Connected, or over minRateTime for a client connected for less (a
// player that took its snapshot and left within 50 ms did not take it
// at megabytes a second: its rate is the bytes of its first second).
func (p PlayerReport) UpRate() float64 { return rate(p.BytesUp, p.Connected) }

// DownRate: see UpRate.
func (p PlayerReport) DownRate() float64 { return rate(p.BytesDown, p.Connected) }

// minRateTime is the least time a client's rates are measured over.
const minRateTime = time.Second

func rate(n int64, d time.Duration) float64 {
	return float64(n) / max(d, minRateTime).Seconds()
}

// PlayerCount returns the number of players the report lists: a player
// who rejoined its seat (a connection to a held seat, after a drop or a
// resumption) is one player however many connections it took; a new
// player in a freed seat is another. Players that left before the last
// 256 rows (Omitted) are not counted.
func (r Report) PlayerCount() int {
	type seat struct {
		id   wire.PlayerID
		join uint64
	}
	seen := map[seat]bool{}
	for _, p := range r.Players {
		if !p.Spectator {
			seen[seat{p.Player, p.JoinTick}] = true
		}
	}
	return len(seen)
}

// WriteText writes the report as a few lines and a table, for a person.
// The first line's "N ticks in D" is the ticks this server ran in its
// run: after a resumption, those since ResumedAt.
func (r Report) WriteText(w io.Writer) error {
	var subst, inputs uint64
	for _, p := range r.Players {
		if !p.Spectator {
			subst += p.Substituted
			inputs += p.Inputs + p.Substituted
		}
	}
	ran := fmt.Sprintf("%d ticks in %v", r.Ticks, r.Duration.Round(time.Millisecond))
	if r.ResumedAt > 0 {
		ran = fmt.Sprintf("tick %d, resumed at tick %d: %d ticks in %v", r.Ticks, r.ResumedAt, r.Ticks-min(r.ResumedAt, r.Ticks), r.Duration.Round(time.Millisecond))
	}
	fmt.Fprintf(w, "match report: %s, %d players, %d spectators, %d desyncs, %d of %d inputs substituted\n",
		ran, r.PlayerCount(), r.Spectators, r.Desyncs, subst, inputs)
	fmt.Fprintf(w, "server tick time: %v (max %v)\n", r.TickTime, round(r.TickTime.Max))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "player\tname\tticks\tinputs\tsubstituted\tlate\tinput latency\tup B/s\tdown B/s\thashes\tdesyncs")
	for _, p := range r.Players {
		who := fmt.Sprint(p.Player)
		ticks := "-"
		if p.Spectator {
			who = "spectator"
		} else {
			end := "end"
			if p.LeftTick != 0 {
				end = fmt.Sprint(p.LeftTick)
			}
			ticks = fmt.Sprintf("%d-%s", p.JoinTick, end)
			if p.JoinTick == 0 && p.LeftTick != 0 {
				ticks = fmt.Sprintf("left at %d, never joined", p.LeftTick)
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%v\t%.0f\t%.0f\t%d\t%d\n", who, p.Name, ticks, p.Inputs, p.Substituted, p.Late,
			p.Latency, p.UpRate(), p.DownRate(), p.Hashes, p.Desyncs)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if r.Omitted > 0 {
		_, err := fmt.Fprintf(w, "(and %d earlier clients that left, not listed)\n", r.Omitted)
		return err
	}
	return nil
}

// row is p's row of the report.
func (m *match) row(p *peer) PlayerReport {
	st := p.stats
	st.JoinTick = p.joinTick
	if p.playerInputs != nil {
		st.Latency = percentiles(&p.latency)
	}
	st.BytesUp, st.BytesDown = p.bytesIn.Load(), p.out.sent.Load()
	if u, ok := p.conn.(udpStats); ok { // the packets' payloads
		s := u.Stats()
		st.BytesUp, st.BytesDown = s.BytesReceived, s.BytesSent
	}
	st.Connected = max(p.until-p.since, 0)
	return st
}

// report builds the match report.
func (m *match) report() Report {
	r := Report{Ticks: m.confirmed, ResumedAt: m.resumedAt, Desyncs: m.desyncs, Spectators: m.spectators, Omitted: m.omitted}
	r.TickTime = percentiles(&m.tickTime)
	if m.started {
		r.Duration = m.ended0 - m.started0
	}
	rows := slices.Clone(m.left)
	for _, p := range m.peers {
		rows = append(rows, reportRow{p.seq, m.row(p)})
	}
	slices.SortFunc(rows, func(a, b reportRow) int { return a.seq - b.seq })
	for _, row := range rows {
		r.Players = append(r.Players, row.r)
	}
	return r
}

// reportRowsKept is how many rows of clients released the match report
// keeps: the latest; the earlier are counted in Report.Omitted. Every
// client ever let in would make the server's memory grow with churn.
const reportRowsKept = 256

// A reportRow is a released client's row of the report, with the order it
// was let in.
type reportRow struct {
	seq int
	r   PlayerReport
}
