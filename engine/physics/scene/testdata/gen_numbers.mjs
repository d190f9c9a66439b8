// Made by: node gen_numbers.mjs > numbers.txt (see number_test.go). Each line: the bits of a
// float64 in hex, then JSON.stringify of it (how JavaScript, and so the anchors, print it).
const f = new Float32Array(1), out = [];
let seed = 12345;
const rnd = () => { seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0; return seed; };
const special = [0, -0, 1, -1, 0.5, 0.1, 1e-6, 1e-7, 9.999999e-7, 1.5e-6, 123456789, 1e20, 1e21, 1.2e21, 3.4028234663852886e38, 1.401298464324817e-45, 1.1754943508222875e-38, 100, 1e6, 1e7, 16777216, 0.001, 1e-5, 4.01621313983469e-8, -9.81, 60, 600];
for (const x of special) { f[0] = x; out.push(f[0]); }
const u = new Uint32Array(f.buffer);
for (let i = 0; i < 1000; i++) { u[0] = rnd(); if (Number.isFinite(f[0])) out.push(f[0]); }
for (let i = 0; i < 1000; i++) { f[0] = (rnd() / 2 ** 32 - 0.5) * 2 ** ((rnd() % 40) - 20); out.push(f[0]); }
for (const x of [1/3, 2/3, 0.1 + 0.2, 5e-324, 1.7976931348623157e308, 123.456, 1e-6, 9.99e-7, 1e21, 999999999999999900000, 0.0782, 5.75, 4907.019]) out.push(x);
const d = new Float64Array(1), b = new BigUint64Array(d.buffer);
for (const x of out) { d[0] = x; process.stdout.write(b[0].toString(16).padStart(16, '0') + ' ' + JSON.stringify(x) + '\n'); }
