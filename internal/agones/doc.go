// Package agones lets a match server run under Agones, the Kubernetes
// controller for fleets of game servers: a client of the Agones SDK
// server's REST API (the sidecar beside every GameServer pod), in the
// standard library alone, and a Lifecycle that walks one match's
// GameServer through its states.
//
// Agones tells the server's container the SDK server's port in the
// environment variable AGONES_SDK_HTTP_PORT (EnvHTTPPort); ClientFromEnv
// reads it. A match server then:
//
//	c, ok, err := agones.ClientFromEnv(os.Getenv)
//	if err != nil { ... }
//	if ok {
//		lc, err := agones.NewLifecycle(c, agones.LifecycleConfig{MatchID: id, Log: log})
//		if err != nil { ... }
//		// ... listen for players ...
//		if err := lc.Ready(ctx); err != nil { ... } // Scheduled -> Ready: allocatable
//		if waitAllocated {
//			gs, err := lc.WaitAllocated(ctx) // a matchmaker's GameServerAllocation: -> Allocated
//			...
//		}
//		// every tick: lc.Beat(); as players come and go: lc.SetPlayers(n)
//		defer lc.Shutdown(context.Background()) // -> Shutdown: Agones deletes the pod
//	}
//
// Health pings go out every LifecycleConfig.HealthEvery from Start (or
// Ready) on; once the server's loop has called Beat, a period without a
// Beat sends none, so a stalled match is marked Unhealthy and replaced.
// The labels the lifecycle sets (LabelMatch, LabelPlayers) appear on the
// GameServer with LabelPrefix, where allocations and operators select on
// them.
//
// The package's integration test runs the real Agones SDK server (its
// local mode, no Kubernetes) when AGONES_SDK_SERVER names its binary, and
// checks the walk Scheduled -> Ready -> Allocated -> Shutdown and the
// labels through GET /gameserver. docs/deploy.md shows the Fleet around
// it.
package agones
