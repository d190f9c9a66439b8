package netplay

import (
	"slices"
	"sync"
	"time"

	"github.com/sirupsen/logrus"
)

// rateLog logs lines of a kind at most once a second: the first at once,
// the ones in the following second counted and reported with the next
// line of that kind (field "repeats"), or by flush. A server logs what a
// client can make happen (a bad message, a desync, a connection joining
// or leaving) through it, so that no client, or crowd of clients, makes
// its log grow faster than a few lines a second.
type rateLog struct {
	log   logrus.FieldLogger
	now   func() time.Time
	mu    sync.Mutex
	kinds map[string]*rateKind
}

type rateKind struct {
	level    logrus.Level
	last     time.Time
	repeats  int
	lastMsg  string
	lastData logrus.Fields
}

func newRateLog(log logrus.FieldLogger) *rateLog {
	return &rateLog{log: log, now: time.Now, kinds: map[string]*rateKind{}}
}

// warn logs msg with fields under kind at the warning level, unless a
// line of that kind was logged less than a second ago, in which case it
// is counted.
func (l *rateLog) warn(kind string, fields logrus.Fields, msg string) {
	l.line(logrus.WarnLevel, kind, fields, msg)
}

// error is warn at the error level.
func (l *rateLog) error(kind string, fields logrus.Fields, msg string) {
	l.line(logrus.ErrorLevel, kind, fields, msg)
}

// info is warn at the info level, for the events of an ordinary match (a
// client joins, leaves): each is also logged at the debug level, so that
// a log at that level has a line per connection.
func (l *rateLog) info(kind string, fields logrus.Fields, msg string) {
	l.line(logrus.InfoLevel, kind, fields, msg)
}

func (l *rateLog) line(level logrus.Level, kind string, fields logrus.Fields, msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	k := l.kinds[kind]
	if k == nil {
		k = &rateKind{}
		l.kinds[kind] = k
	} else if now.Sub(k.last) < time.Second {
		k.repeats++
		k.level, k.lastMsg, k.lastData = level, msg, fields
		if level == logrus.InfoLevel {
			l.log.WithFields(fields).WithField("kind", kind).Debug(msg)
		}
		return
	}
	f := logrus.Fields{"kind": kind}
	for key, v := range fields {
		f[key] = v
	}
	if k.repeats > 0 {
		f["repeats"] = k.repeats // since the last line of this kind
	}
	k.last, k.repeats = now, 0
	l.log.WithFields(f).Log(level, msg)
}

// flush logs, for every kind with counted repeats, one line with the
// count and the last of them (field "summary": the line stands for the
// repeats alone).
func (l *rateLog) flush() { l.summarise(false) }

// flushDue is flush for the kinds whose last line is a second old or
// more: called every second or so, it reports a burst's count about a
// second after the burst, not with the next line of its kind (which may
// come much later), at the same bounded rate of a line a second a kind.
func (l *rateLog) flushDue() { l.summarise(true) }

func (l *rateLog) summarise(due bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	kinds := make([]string, 0, len(l.kinds))
	for kind := range l.kinds {
		kinds = append(kinds, kind)
	}
	slices.Sort(kinds)
	for _, kind := range kinds {
		k := l.kinds[kind]
		if k.repeats == 0 || due && now.Sub(k.last) < time.Second {
			continue
		}
		f := logrus.Fields{"kind": kind, "repeats": k.repeats, "summary": true}
		for key, v := range k.lastData {
			f[key] = v
		}
		l.log.WithFields(f).Log(k.level, k.lastMsg)
		k.last, k.repeats = now, 0
	}
}
