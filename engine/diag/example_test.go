package diag_test

import (
	"fmt"
	"os"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nebulaengine/nebula/engine/diag"
	"github.com/nebulaengine/nebula/timing"
)

// A loop at 60 Hz ticks, rendered at 100 Hz, watched by a Monitor. Frame 50
// takes 40 ms of fixed-system time: the Monitor logs it, once. At the end
// the overlay text of the last frame and the run's report.
func Example() {
	log := logrus.New()
	log.SetOutput(os.Stdout)
	log.SetFormatter(&logrus.TextFormatter{DisableTimestamp: true})

	loop := timing.MustNewLoop(timing.DefaultConfig())
	mon := diag.NewMonitor(diag.DefaultConfig(loop.TickRate()), log)
	var f diag.Figures
	for i := range 101 {
		now := time.Duration(i) * 10 * time.Millisecond
		loop.Tick(now, nil, nil)
		f = diag.Figures{Loop: loop.Stats(), RenderCPU: 2 * time.Millisecond, Entities: 1000,
			// As the windowed runner fills it on a driver without a
			// memory extension (llvmpipe): the engine's own bytes.
			GPUMemory: diag.GPUMemory{Source: diag.GPUMemoryOwn, Own: 3<<20 + uint64(i)<<10}}
		if i == 50 {
			f.FixedCPU = 40 * time.Millisecond
		}
		mon.Observe(now, &f)
	}

	f.HeapInUse, f.GCCycles = 12<<20, 3 // Observe filled the real figures; fix them for the output
	fmt.Println(string(diag.AppendText(nil, &f)))

	r := mon.Report(10 * time.Millisecond)
	fmt.Printf("%d frames, %.0f FPS, %.0f UPS, p99 %v, steps %v\n", r.Frames, r.FPS, r.UPS, r.P99, r.Steps)
	fmt.Printf("%d entities, GPU memory peak %d bytes\n", r.Entities, r.GPUPeak)
	// Output:
	// level=error msg="fixed systems over budget" count=1 frame=51 kind=fixed threshold=16.666666ms tick=30 value=40ms
	// FPS 100.0  UPS 60.0
	// frame 10.00 ms  steps 1  alpha 0.00
	// fixed 0.00 ms  update 0.00 ms
	// render 2.00 ms  gpu -
	// draws -
	// debt 16.7 ms  dropped 0 ms
	// clamped 0  capped 0  snaps 0
	// entities 1000  heap 12.0 MiB  gc 3
	// gpu-mem 3.1 MiB (own buffers)
	// 101 frames, 100 FPS, 60 UPS, p99 10ms, steps [41 60 0 0 0 0]
	// 1000 entities, GPU memory peak 3248128 bytes
}
