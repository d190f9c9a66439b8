package scene

import "math"

// atan2 is fdlibm's __ieee754_atan2, as V8 computes JavaScript's
// Math.atan2 (src/base/ieee754.cc), so that a joint record's angles match
// the anchors' to the last bit for the same poses; Go's math.Atan2 can
// differ from it in the last bit.
func atan2(y, x float64) float64 {
	const (
		tiny  = 1.0e-300
		piO4  = 7.8539816339744827900e-01 // 0x3FE921FB54442D18
		piO2  = 1.5707963267948965580e+00 // 0x3FF921FB54442D18
		pi    = 3.1415926535897931160e+00 // 0x400921FB54442D18
		piLo  = 1.2246467991473531772e-16 // 0x3CA1A62633145C07
		inf   = 0x7ff00000
		notSn = 0x7fffffff
	)
	if math.IsNaN(x) || math.IsNaN(y) {
		return x + y
	}
	bx, by := math.Float64bits(x), math.Float64bits(y)
	hx, hy := int32(bx>>32), int32(by>>32)
	lx, ly := uint32(bx), uint32(by)
	ix, iy := hx&notSn, hy&notSn
	if x == 1 {
		return atan(y)
	}
	m := int((hy>>31)&1) | int((hx>>30)&2) // 2·sign(x) + sign(y)
	if iy == 0 && ly == 0 {                // y = ±0
		switch m {
		case 0, 1:
			return y // atan(±0, +anything) = ±0
		case 2:
			return pi + tiny // atan(+0, -anything) = π
		default:
			return -pi - tiny // atan(-0, -anything) = -π
		}
	}
	if ix == 0 && lx == 0 { // x = ±0
		if hy < 0 {
			return -piO2 - tiny
		}
		return piO2 + tiny
	}
	if ix == inf { // x = ±Inf
		if iy == inf {
			switch m {
			case 0:
				return piO4 + tiny
			case 1:
				return -piO4 - tiny
			case 2:
				return 3*piO4 + tiny
			default:
				return -3*piO4 - tiny
			}
		}
		switch m {
		case 0:
			return 0
		case 1:
			return math.Copysign(0, -1)
		case 2:
			return pi + tiny
		default:
			return -pi - tiny
		}
	}
	if iy == inf { // y = ±Inf
		if hy < 0 {
			return -piO2 - tiny
		}
		return piO2 + tiny
	}
	var z float64
	switch k := (iy - ix) >> 20; {
	case k > 60: // |y/x| > 2^60
		z = piO2 + 0.5*piLo
		m &= 1
	case hx < 0 && k < -60: // |y|/x < -2^60
		z = 0
	default:
		z = atan(math.Abs(y / x))
	}
	switch m {
	case 0:
		return z // atan(+, +)
	case 1:
		return -z // atan(-, +)
	case 2:
		return pi - (z - piLo) // atan(+, -)
	}
	return (z - piLo) - pi // atan(-, -)
}

// atanHi and atanLo are atan(0.5), atan(1), atan(1.5) and atan(∞), each
// split in a high and a low part; atanT are the coefficients of fdlibm's
// polynomial.
var (
	atanHi = [4]float64{4.63647609000806093515e-01, 7.85398163397448278999e-01, 9.82793723247329054082e-01, 1.57079632679489655800e+00}
	atanLo = [4]float64{2.26987774529616870924e-17, 3.06161699786838301793e-17, 1.39033110312309984516e-17, 6.12323399573676603587e-17}
	atanT  = [11]float64{
		3.33333333333329318027e-01, -1.99999999998764832476e-01, 1.42857142725034663711e-01,
		-1.11111104054623557880e-01, 9.09088713343650656196e-02, -7.69187620504482999495e-02,
		6.66107313738753120669e-02, -5.83357013379057348645e-02, 4.97687799461593236017e-02,
		-3.65315727442169155270e-02, 1.62858201153657823623e-02,
	}
)

// atan is fdlibm's atan, as V8 computes it.
func atan(x float64) float64 {
	hx := int32(math.Float64bits(x) >> 32)
	ix := hx & 0x7fffffff
	id := -1
	switch {
	case ix >= 0x44100000: // |x| >= 2^66, or NaN
		if math.IsNaN(x) {
			return x + x
		}
		if hx > 0 {
			return atanHi[3] + atanLo[3]
		}
		return -atanHi[3] - atanLo[3]
	case ix < 0x3fdc0000: // |x| < 0.4375
		if ix < 0x3e400000 { // |x| < 2^-27
			return x
		}
	default:
		x = math.Abs(x)
		switch {
		case ix < 0x3fe60000: // 7/16 <= |x| < 11/16
			id, x = 0, (float64(2*x)-1)/(2+x)
		case ix < 0x3ff30000: // 11/16 <= |x| < 19/16
			id, x = 1, (x-1)/(x+1)
		case ix < 0x40038000: // |x| < 2.4375
			id, x = 2, (x-1.5)/(1+float64(1.5*x))
		default: // 2.4375 <= |x| < 2^66
			id, x = 3, -1/x
		}
	}
	z := float64(x * x)
	w := float64(z * z)
	// Horner's rule, each product rounded: the odd and the even terms.
	odd, even := atanT[10], atanT[9]
	for i := 8; i >= 0; i -= 2 {
		odd = atanT[i] + float64(w*odd)
	}
	for i := 7; i >= 1; i -= 2 {
		even = atanT[i] + float64(w*even)
	}
	s1, s2 := float64(z*odd), float64(w*even)
	if id < 0 {
		return x - float64(x*(s1+s2))
	}
	z = atanHi[id] - ((float64(x*(s1+s2)) - atanLo[id]) - x)
	if hx < 0 {
		return -z
	}
	return z
}
