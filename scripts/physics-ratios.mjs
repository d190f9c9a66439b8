// physics-ratios.mjs: the ratio of each engine's step times to a base
// engine's (Rapier's deterministic build), from the runs compare.mjs kept
// with --json; `make bench-physics` prints it under compare.mjs's table.
//
//   node scripts/physics-ratios.mjs RUNS.json [BASE]
//
// For every scene and engine: the median over the runs of mean, p50 and
// p95 divided by the base engine's median of the same figure (below 1 is
// faster than the base), and how many of its dynamic bodies were asleep at
// the end. Runs that failed are left out and counted. For the scenes with
// joints (nebula-scene/2) a second table puts each engine's joint errors
// (FORMAT.md's joint_errors of its first run: the largest after the last
// step and the peak over every step, position in m, angle in rad, limit in
// rad or m) beside its mean step ratio.
import { readFileSync } from 'node:fs';

const [file, base = 'rapier'] = process.argv.slice(2);
if (!file) {
  console.error('usage: node scripts/physics-ratios.mjs RUNS.json [BASE]');
  process.exit(2);
}
const runs = JSON.parse(readFileSync(file, 'utf8'));
const med = (xs) => {
  const s = [...xs].sort((a, b) => a - b), m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const scenes = [...new Set(runs.map((r) => r.scene))];
const engines = [...new Set(runs.map((r) => r.engine))];
const figure = (scene, engine, k) => {
  const ok = runs.filter((r) => r.scene === scene && r.engine === engine && !r.error);
  return ok.length ? med(ok.map((r) => r.step_ms[k])) : NaN;
};
const f = (x) => (Number.isFinite(x) ? x.toFixed(2) : '-');
console.log(`\nratio to ${base} (median over the runs; below 1: faster than ${base})\n`);
console.log('| scene | engine | mean | p50 | p95 | asleep at end | failed runs |');
console.log('|---|---|---|---|---|---|---|');
for (const scene of scenes) {
  for (const engine of engines) {
    const rs = runs.filter((r) => r.scene === scene && r.engine === engine);
    const ok = rs.filter((r) => !r.error);
    const ratio = (k) => f(figure(scene, engine, k) / figure(scene, base, k));
    const asleep = ok.length ? `${ok[0].asleep}/${ok[0].bodies}` : '-';
    console.log(`| ${scene} | ${engine} | ${ratio('mean')} | ${ratio('p50')} | ${ratio('p95')} | ${asleep} | ${rs.length - ok.length} |`);
  }
}

const withJoints = scenes.filter((scene) => runs.some((r) => r.scene === scene && r.joint_errors));
if (withJoints.length) {
  const g = (x) => (x === undefined ? '' : x === 0 ? '0' : x >= 0.01 ? x.toPrecision(3) : x.toExponential(1));
  const cell = (e) => (e ? `${g(e.max)} / ${g(e.peak)}` : '-');
  console.log(`\njoint errors (first run): largest after the last step / peak over every step; mean step time as a ratio to ${base}\n`);
  console.log('| scene | engine | mean step ratio | position (m) | angle (rad) | limit (rad or m) |');
  console.log('|---|---|---|---|---|---|');
  for (const scene of withJoints) {
    for (const engine of engines) {
      const ok = runs.filter((r) => r.scene === scene && r.engine === engine && !r.error);
      const je = ok.length ? ok[0].joint_errors : undefined;
      if (!je) { console.log(`| ${scene} | ${engine} | - | failed | | |`); continue; }
      const ratio = f(figure(scene, engine, 'mean') / figure(scene, base, 'mean'));
      console.log(`| ${scene} | ${engine} | ${ratio} | ${cell(je.position)} | ${cell(je.angle)} | ${cell(je.limit)} |`);
    }
  }
}
