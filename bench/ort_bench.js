#!/usr/bin/env node
// Times an ONNX model with ONNX Runtime (CPU execution provider, onnxruntime-node).
//
// Usage: node bench/ort_bench.js MODEL.onnx INPUT.npy|INPUT.npz THREADS REPEAT [--save-outputs DIR]
//
// A .npy file feeds the model's first input; a .npz feeds the inputs named by its keys.
// Session options: intraOpNumThreads=THREADS, interOpNumThreads=1, graphOptimizationLevel 'all',
// sequential execution. Session creation and the first (warm-up) run are not timed; the next
// REPEAT runs are. Prints one JSON object:
//   {"median_ms", "runs": [ms...], "warmup_ms", "session_ms", "threads", "ort_version", "outputs"}
// --save-outputs DIR writes DIR/<output name made file-safe>.npy (float32/int64/... as produced).
'use strict';

const fs = require('fs');
const path = require('path');
const zlib = require('zlib');

// ---- .npy / .npz --------------------------------------------------------------------------

const NPY_DTYPES = {
  '<f4': ['float32', Float32Array], '<f8': ['float64', Float64Array],
  '<i8': ['int64', BigInt64Array], '<i4': ['int32', Int32Array], '<i2': ['int16', Int16Array],
  '|i1': ['int8', Int8Array], '|u1': ['uint8', Uint8Array], '<u2': ['uint16', Uint16Array],
  '<u4': ['uint32', Uint32Array], '<u8': ['uint64', BigUint64Array], '|b1': ['bool', Uint8Array],
};

function parseNpy(buf, where) {
  const magic = buf.subarray(0, 6).toString('latin1');
  if (magic !== '\x93NUMPY') throw new Error(`${where}: not a .npy file`);
  const major = buf[6];
  let headerLen, offset;
  if (major === 1) { headerLen = buf.readUInt16LE(8); offset = 10; }
  else if (major === 2 || major === 3) { headerLen = buf.readUInt32LE(8); offset = 12; }
  else throw new Error(`${where}: unsupported .npy version ${major}`);
  const header = buf.subarray(offset, offset + headerLen).toString(major === 3 ? 'utf8' : 'latin1');
  const descr = /'descr':\s*'([^']+)'/.exec(header);
  const fortran = /'fortran_order':\s*(True|False)/.exec(header);
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header);
  if (!descr || !fortran || !shape) throw new Error(`${where}: bad .npy header ${header}`);
  if (fortran[1] === 'True') throw new Error(`${where}: Fortran-order arrays are not supported`);
  let d = descr[1];
  if (d === '<b1' || d === '=b1') d = '|b1';
  if (d === '|i1' || d === '<i1') d = '|i1';
  if (d === '|u1' || d === '<u1') d = '|u1';
  const entry = NPY_DTYPES[d];
  if (!entry) throw new Error(`${where}: unsupported dtype ${descr[1]}`);
  const dims = shape[1].split(',').map((s) => s.trim()).filter((s) => s.length).map(Number);
  const count = dims.reduce((a, b) => a * b, 1);
  const [type, Ctor] = entry;
  const start = offset + headerLen;
  const bytes = count * Ctor.BYTES_PER_ELEMENT;
  if (buf.length < start + bytes) throw new Error(`${where}: truncated data`);
  // Copy into an aligned buffer of its own.
  const data = new Ctor(count);
  Buffer.from(data.buffer).set(buf.subarray(start, start + bytes));
  return { type: type === 'bool' ? 'bool' : type, dims, data: type === 'bool' ? Uint8Array.from(data, (v) => (v ? 1 : 0)) : data };
}

// Reads the members of a zip archive (stored or deflated) via its central directory.
function readZip(buf, where) {
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 65557); --i) {
    if (buf.readUInt32LE(i) === 0x06054b50) { eocd = i; break; }
  }
  if (eocd < 0) throw new Error(`${where}: not a zip/.npz file`);
  let count = buf.readUInt16LE(eocd + 10);
  let cd = buf.readUInt32LE(eocd + 16);
  const members = [];
  for (let i = 0; i < count; ++i) {
    if (buf.readUInt32LE(cd) !== 0x02014b50) throw new Error(`${where}: bad central directory`);
    const method = buf.readUInt16LE(cd + 10);
    let csize = buf.readUInt32LE(cd + 20);
    const nameLen = buf.readUInt16LE(cd + 28);
    const extraLen = buf.readUInt16LE(cd + 30);
    const commentLen = buf.readUInt16LE(cd + 32);
    let local = buf.readUInt32LE(cd + 42);
    const name = buf.subarray(cd + 46, cd + 46 + nameLen).toString('utf8');
    // zip64 extra field (numpy writes it for large members)
    let e = cd + 46 + nameLen;
    const eEnd = e + extraLen;
    while (e + 4 <= eEnd) {
      const id = buf.readUInt16LE(e), size = buf.readUInt16LE(e + 2);
      if (id === 0x0001) {
        let p = e + 4;
        if (buf.readUInt32LE(cd + 24) === 0xffffffff) p += 8;  // uncompressed size
        if (csize === 0xffffffff) { csize = Number(buf.readBigUInt64LE(p)); p += 8; }
        if (local === 0xffffffff) { local = Number(buf.readBigUInt64LE(p)); }
      }
      e += 4 + size;
    }
    const lNameLen = buf.readUInt16LE(local + 26);
    const lExtraLen = buf.readUInt16LE(local + 28);
    const start = local + 30 + lNameLen + lExtraLen;
    const raw = buf.subarray(start, start + csize);
    let data;
    if (method === 0) data = raw;
    else if (method === 8) data = zlib.inflateRawSync(raw);
    else throw new Error(`${where}: member ${name} uses unsupported compression ${method}`);
    members.push({ name, data });
    cd += 46 + nameLen + extraLen + commentLen;
  }
  return members;
}

function loadInputs(file, inputNames) {
  const buf = fs.readFileSync(file);
  if (file.endsWith('.npz')) {
    const feeds = {};
    for (const m of readZip(buf, file)) {
      const key = m.name.replace(/\.npy$/, '');
      feeds[key] = parseNpy(m.data, `${file}:${m.name}`);
    }
    return feeds;
  }
  return { [inputNames[0]]: parseNpy(buf, file) };
}

function npyBytes(tensor) {
  const descr = { float32: '<f4', float64: '<f8', int64: '<i8', int32: '<i4', int16: '<i2', int8: '|i1',
    uint8: '|u1', uint16: '<u2', uint32: '<u4', uint64: '<u8', bool: '|b1' }[tensor.type];
  if (!descr) throw new Error(`cannot save output of type ${tensor.type}`);
  const shape = tensor.dims.length === 1 ? `(${tensor.dims[0]},)` : `(${tensor.dims.join(', ')})`;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shape}, }`;
  const total = 10 + header.length + 1;
  header += ' '.repeat((64 - (total % 64)) % 64) + '\n';
  const pre = Buffer.alloc(10);
  pre.write('\x93NUMPY', 0, 'latin1');
  pre[6] = 1; pre[7] = 0;
  pre.writeUInt16LE(header.length, 8);
  const d = tensor.data;
  return Buffer.concat([pre, Buffer.from(header, 'latin1'), Buffer.from(d.buffer, d.byteOffset, d.byteLength)]);
}

// ---- main ---------------------------------------------------------------------------------

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n === 0 ? NaN : n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

async function main() {
  const args = process.argv.slice(2);
  let saveDir = null;
  const i = args.indexOf('--save-outputs');
  if (i >= 0) { saveDir = args[i + 1]; args.splice(i, 2); }
  if (args.length !== 4 || !saveDir && i >= 0) {
    console.error('usage: node ort_bench.js MODEL INPUT.npy|INPUT.npz THREADS REPEAT [--save-outputs DIR]');
    process.exit(2);
  }
  const [modelPath, inputPath] = args;
  const threads = parseInt(args[2], 10);
  const repeat = parseInt(args[3], 10);
  if (!(threads >= 1) || !(repeat >= 1)) throw new Error('THREADS and REPEAT must be positive integers');

  const ort = require('onnxruntime-node');
  ort.env.logLevel = 'error';
  const opts = {
    executionProviders: ['cpu'],
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
    executionMode: 'sequential',
    logSeverityLevel: 3,
  };
  let t0 = process.hrtime.bigint();
  const session = await ort.InferenceSession.create(modelPath, opts);
  const sessionMs = Number(process.hrtime.bigint() - t0) / 1e6;

  const raw = loadInputs(inputPath, session.inputNames);
  const feeds = {};
  for (const [name, t] of Object.entries(raw)) {
    if (!session.inputNames.includes(name)) {
      throw new Error(`input ${name} from ${inputPath} is not an input of the model (${session.inputNames.join(', ')})`);
    }
    feeds[name] = new ort.Tensor(t.type, t.data, t.dims);
  }

  t0 = process.hrtime.bigint();
  let out = await session.run(feeds);
  const warmupMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const runs = [];
  for (let r = 0; r < repeat; ++r) {
    t0 = process.hrtime.bigint();
    out = await session.run(feeds);
    runs.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }

  const outputs = {};
  for (const name of session.outputNames) {
    const t = out[name];
    outputs[name] = { type: t.type, dims: t.dims };
    if (saveDir) {
      fs.mkdirSync(saveDir, { recursive: true });
      fs.writeFileSync(path.join(saveDir, name.replace(/[^A-Za-z0-9_.-]/g, '_') + '.npy'), npyBytes(t));
    }
  }
  const round = (x) => Math.round(x * 1000) / 1000;
  console.log(JSON.stringify({
    median_ms: round(median(runs)),
    runs: runs.map(round),
    warmup_ms: round(warmupMs),
    session_ms: round(sessionMs),
    threads,
    ort_version: require('onnxruntime-node/package.json').version,
    outputs,
  }));
  if (typeof session.release === 'function') await session.release();
}

main().catch((e) => {
  console.error(`ort_bench: ${e && e.message ? e.message : e}`);
  process.exit(1);
});
