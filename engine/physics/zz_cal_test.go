package physics

import "testing"

func BenchmarkCalBrute1000(b *testing.B) {
	boxes, active := pileSettled(1000, 8)
	cpu := startThreadCPU()
	n := 0
	for b.Loop() {
		n = len(bruteForce(boxes, active))
	}
	cpu.report(b)
	_ = n
}
