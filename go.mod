module github.com/nebulaengine/nebula

go 1.26.0

require (
	github.com/ebitengine/oto/v3 v3.4.0
	github.com/go-gl/gl v0.0.0-20231021071112-07e5d0ea2e71
	github.com/go-gl/glfw/v3.3/glfw v0.0.0-20260823155953-d41da22a9587
	github.com/go-gl/mathgl v1.2.0
	github.com/google/pprof v0.0.0-20260906184651-6331bc6350fe
	github.com/jfreymuth/oggvorbis v1.0.5
	github.com/prometheus/client_golang v1.25.0
	github.com/qmuntal/gltf v0.28.0
	github.com/sirupsen/logrus v1.10.2
	github.com/zeebo/xxh3 v1.0.2
	golang.org/x/crypto v0.50.0
	golang.org/x/exp v0.0.0-20261014143641-f0251eb4aa3e
	golang.org/x/image v0.47.0
	golang.org/x/tools v0.52.0
	gopkg.in/yaml.v3 v3.0.1
)

require (
	github.com/beorn7/perks v1.0.1 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/ebitengine/purego v0.9.0 // indirect
	github.com/jfreymuth/vorbis v1.0.2 // indirect
	github.com/klauspost/cpuid/v2 v2.0.9 // indirect
	github.com/munnerz/goautoneg v0.0.0-20191010083416-a7dc8b61c822 // indirect
	github.com/prometheus/client_model v0.6.3 // indirect
	github.com/prometheus/common v0.72.0 // indirect
	github.com/prometheus/procfs v0.22.0 // indirect
	golang.org/x/mod v0.42.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)
