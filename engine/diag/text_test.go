package diag

import "testing"

func TestAppendText(t *testing.T) {
	f := sampleFrame()
	want := "FPS 144.0  UPS 60.0\n" +
		"frame 6.94 ms  steps 1  alpha 0.42\n" +
		"fixed 0.21 ms  update 0.03 ms  render 1.60 ms  gpu 3.2 ms\n" +
		"debt 2.1 ms  clamped 1  capped 2  dropped 7 ms\n" +
		"snaps 3  entities 1003\n" +
		"heap 12.3 MiB  gc 42"
	if got := string(AppendText([]byte(nil), &f)); got != want {
		t.Errorf("AppendText:\n%s\nwant:\n%s", got, want)
	}
	f.GPUValid = false
	want = "FPS 144.0  UPS 60.0\n" +
		"frame 6.94 ms  steps 1  alpha 0.42\n" +
		"fixed 0.21 ms  update 0.03 ms  render 1.60 ms  gpu -\n" +
		"debt 2.1 ms  clamped 1  capped 2  dropped 7 ms\n" +
		"snaps 3  entities 1003\n" +
		"heap 12.3 MiB  gc 42"
	if got := string(AppendText([]byte("x"), &f)); got != "x"+want {
		t.Errorf("AppendText without a GPU time:\n%s\nwant:\nx%s", got, want)
	}
}

func TestAppendTextDoesNotAllocate(t *testing.T) {
	f := sampleFrame()
	buf := make([]byte, 0, 512)
	if n := testing.AllocsPerRun(1000, func() { buf = AppendText(buf[:0], &f) }); n != 0 {
		t.Errorf("AppendText allocates %v times", n)
	}
}
