// Made by: node gen_joints.mjs PHYSICS_DIR > joints.json (see jointresult_test.go), PHYSICS_DIR
// the folder with the anchors (anchors/common.mjs, whose jointMeasures and JointErrors the
// anchors' runners use). It writes a nebula-scene/2 scene with a joint of every type and option,
// the poses of its bodies after each of a few steps (random, float32 values as an engine reports
// them), and the joint records and joint_errors the anchors compute from them: once after all the
// steps, and once as for a run of no steps (the poses of step 0 only).
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const dir = process.argv[2];
if (!dir) {
  process.stderr.write('usage: node gen_joints.mjs PHYSICS_DIR > joints.json\n');
  process.exit(2);
}
const { JointErrors } = await import(pathToFileURL(path.join(dir, 'anchors', 'common.mjs')).href);

let seed = 2024;
const rnd = () => { seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0; return seed / 2 ** 32; };
const f32 = Math.fround;
const s3 = Math.sqrt(1 / 3), s2 = Math.sqrt(1 / 2);

const box = { type: 'box', half_extents: [0.2, 0.2, 0.2] };
const bodies = [
  { id: 'ground', kind: 'static', shape: box, position: [0, 0, 0] },
  { id: 'post', kind: 'static', shape: box, position: [1, 2, 3], rotation: [0, 0.6, 0, 0.8] },
];
for (let i = 0; i < 6; i++) bodies.push({ id: `b${i}`, kind: 'dynamic', shape: box, position: [i, 1, 0] });
const frame = (axis_a, normal_a, axis_b = axis_a, normal_b = normal_a) => ({ axis_a, normal_a, axis_b, normal_b });
const joint = (id, type, a, b, extra) => ({ id, type, body_a: a, body_b: b, anchor_a: [0.1, 0.2, -0.3], anchor_b: [-0.2, 0.1, 0.4], ...extra });
const joints = [
  joint('weld', 'fixed', 'post', 'b0', frame([1, 0, 0], [0, 1, 0])),
  joint('weld-flip', 'fixed', 'b0', 'b1', frame([1, 0, 0], [0, -1, 0], [-1, 0, 0], [0, 1, 0])),
  joint('weld-back', 'fixed', 'b1', 'b2', frame([-1, 0, 0], [0, -1, 0], [0, 0, 1], [1, 0, 0])),
  joint('ball', 'spherical', 'ground', 'b1'),
  joint('hinge', 'revolute', 'b2', 'b3', { ...frame([s3, s3, s3], [s2, -s2, 0], [0, 0, 1], [1, 0, 0]), limits: [-0.5, 0.25] }),
  joint('hinge-free', 'revolute', 'ground', 'b3', { ...frame([0, 1, 0], [0, 0, 1]), motor: { target_velocity: 1, max_force: 10 } }),
  joint('slider', 'prismatic', 'b3', 'b4', { ...frame([0, 1, 0], [1, 0, 0], [s2, s2, 0], [0, 0, -1]), limits: [-0.1, 0.2] }),
  joint('slider-free', 'prismatic', 'post', 'b4', frame([0, 0, 1], [1, 0, 0])),
  joint('rope', 'distance', 'b4', 'b5', { length: 1.5 }),
  joint('spring', 'distance', 'b5', 'ground', { length: 0.5, spring: { stiffness: 100, damping: 1 } }),
  joint('tight', 'distance', 'b0', 'b5', { length: 0.01 }),
];
const scene = { format: 'nebula-scene/2', name: 'joint-measures', hz: 60, steps: 5, gravity: [0, -9.81, 0], bodies, joints };

// A random pose: position in [-1, 1]³ about the body's own, rotation a random unit quaternion,
// both rounded to float32 (the rotation is then not quite of unit length, as an engine's).
const pose = (b) => {
  const q = [rnd() - 0.5, rnd() - 0.5, rnd() - 0.5, rnd() - 0.5];
  const n = Math.hypot(...q);
  return { position: b.position.map((x) => f32(x + 2 * rnd() - 1)), rotation: q.map((x) => f32(x / n)) };
};
const steps = [];
for (let s = 0; s <= scene.steps; s++) {
  // Static bodies keep their pose from the file (rounded to float32).
  steps.push(bodies.map((b) => (b.kind === 'static' ? { position: b.position.map(f32), rotation: (b.rotation || [0, 0, 0, 1]).map(f32) } : pose(b))));
}
// Written before the measures run: they cache each joint's frames in it.
const sceneText = JSON.stringify(scene);
const run = (last) => {
  let cur = 0;
  const index = new Map(bodies.map((b, i) => [b.id, i]));
  const je = new JointErrors(joints, (id) => steps[cur][index.get(id)]);
  for (cur = 1; cur <= last; cur++) je.sample();
  cur = last;
  return je.final();
};
const all = run(scene.steps), none = run(0);

// Math.atan2 on pairs of every sign and of magnitudes from 1e-20 to 1e20 (its result in each
// of fdlibm's ranges), as [y, x, atan2(y, x)].
const atan2 = [];
for (let i = 0; i < 400; i++) {
  const mag = () => (rnd() - 0.5) * 10 ** Math.floor(rnd() * 8 - 4) * (i % 10 === 0 ? 1e16 : 1);
  const y = mag(), x = i % 7 === 0 ? y * (1 + rnd() * 1e-3) : mag();
  atan2.push([y, x, Math.atan2(y, x)]);
}
for (const [y, x] of [[1, 1], [1, -1], [-1, -1], [1e-30, 1], [1, 1e-30], [1e30, -1], [-1, 1e30], [-1, -1e30], [0.5, 1], [1.1875, 1], [2.4375, 1], [0.4375, 1]])
  atan2.push([y, x, Math.atan2(y, x)]);
process.stdout.write(`{"scene":${sceneText},"steps":${JSON.stringify(steps)},"result":${JSON.stringify(all)},"result_no_steps":${JSON.stringify(none)},"atan2":${JSON.stringify(atan2)}}\n`);
