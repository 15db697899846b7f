// The parvlc browser demo: plain JS over the wasm module that wasm-bindgen generates.
import init, { openGpu, generate, compress, decompress_bytes, same_bytes, gpuRoundTrip } from './parvlc_web.js';

const $ = (id) => document.getElementById(id);
const ui = {
  banner: $('banner'), backend: $('backend'), drop: $('drop'), file: $('file'),
  entropy: $('entropy'), entropyOut: $('entropy-out'), size: $('size'), seed: $('seed'),
  generate: $('generate'), compress: $('compress'), inputInfo: $('input-info'),
  status: $('status'), path: $('r-path'), original: $('r-original'),
  compressed: $('r-compressed'), ratio: $('r-ratio'), gpu: $('r-gpu'), wall: $('r-wall'),
  roundtrip: $('r-roundtrip'), gpuDecode: $('r-gpu-decode'), passes: $('r-passes'), download: $('download'), downloadOriginal: $('download-original'),
  histogram: $('histogram'), lengths: $('lengths'),
};

// State the browser test reads: window.parvlcDemo.
const demo = { backend: null, input: null, inputName: null, result: null, roundTrip: null, gpuDecode: null };
window.parvlcDemo = demo;

function setStatus(state, text) {
  ui.status.dataset.state = state;
  ui.status.textContent = text;
}

function bytes(n) {
  if (n >= 1 << 30) return `${(n / (1 << 30)).toFixed(2)} GiB`;
  if (n >= 1 << 20) return `${(n / (1 << 20)).toFixed(2)} MiB`;
  if (n >= 1 << 10) return `${(n / (1 << 10)).toFixed(1)} KiB`;
  return `${n} B`;
}

function rate(n, ms) {
  if (!(ms > 0)) return null;
  const gbs = n / (ms * 1e-3) / 1e9;
  const digits = gbs >= 10 ? 1 : gbs >= 1 ? 2 : gbs >= 0.01 ? 3 : 4;
  return `${gbs.toFixed(digits)} GB/s`;
}

function setInput(data, name) {
  demo.input = data;
  demo.inputName = name;
  demo.result = null;
  demo.roundTrip = null;
  demo.gpuDecode = null;
  ui.download.hidden = true;
  ui.downloadOriginal.hidden = true;
  ui.inputInfo.textContent = `Input: ${name}, ${bytes(data.length)} (${data.length} bytes).`;
  ui.compress.disabled = false;
  setStatus('ready', 'Ready: press Compress.');
}

async function readFile(file) {
  const data = new Uint8Array(await file.arrayBuffer());
  setInput(data, file.name);
}

function drawBars(canvas, values, { color, maxValue, yLabel, yTicks = [0, 0.5, 1], xTicks }) {
  const ctx = canvas.getContext('2d');
  const w = canvas.width, h = canvas.height;
  const left = 40, bottom = 20, top = 8, right = 16;
  ctx.clearRect(0, 0, w, h);
  ctx.font = '11px system-ui, sans-serif';
  ctx.fillStyle = '#5b6475';
  ctx.strokeStyle = '#d8dde6';
  const plotW = w - left - right, plotH = h - top - bottom;
  const max = maxValue ?? Math.max(1, ...values);
  for (const f of yTicks) {
    const y = top + plotH * (1 - f);
    ctx.beginPath(); ctx.moveTo(left, y); ctx.lineTo(w - right, y); ctx.stroke();
    ctx.textAlign = 'right'; ctx.textBaseline = 'middle';
    ctx.fillText(yLabel(max * f), left - 4, y);
  }
  ctx.textAlign = 'center'; ctx.textBaseline = 'top';
  for (const t of xTicks) {
    ctx.fillText(String(t.label), left + plotW * (t.at + 0.5) / values.length, h - bottom + 4);
  }
  const bw = plotW / values.length;
  ctx.fillStyle = color;
  values.forEach((v, i) => {
    if (v <= 0) return;
    const bh = Math.max(1, plotH * Math.min(v, max) / max);
    ctx.fillRect(left + i * bw, top + plotH - bh, Math.max(1, bw - 0.5), bh);
  });
}

function drawCharts(result) {
  const hist = Array.from(result.histogram);
  const ticks = [0, 64, 128, 192, 255].map((at) => ({ at, label: at }));
  drawBars(ui.histogram, hist, {
    color: '#2f6fde',
    yLabel: (v) => (v >= 1e6 ? `${(v / 1e6).toFixed(1)}M` : v >= 1e3 ? `${(v / 1e3).toFixed(0)}k` : v.toFixed(0)),
    xTicks: ticks,
  });
  const lengths = Array.from(result.codeLengths);
  drawBars(ui.lengths, lengths, {
    color: '#e07b1a',
    maxValue: 15,
    yLabel: (v) => v.toFixed(0),
    yTicks: [0, 1 / 3, 2 / 3, 1],
    xTicks: [...ticks.slice(0, 4), { at: 256, label: 'EOB' }],
  });
}

let objectUrls = [];
function offerDownloads(gz, original, name) {
  objectUrls.forEach((u) => URL.revokeObjectURL(u));
  const gzUrl = URL.createObjectURL(new Blob([gz], { type: 'application/gzip' }));
  const origUrl = URL.createObjectURL(new Blob([original], { type: 'application/octet-stream' }));
  objectUrls = [gzUrl, origUrl];
  ui.download.href = gzUrl;
  ui.download.download = `${name}.gz`;
  ui.download.textContent = `Download ${name}.gz (${bytes(gz.length)})`;
  ui.download.hidden = false;
  ui.downloadOriginal.href = origUrl;
  ui.downloadOriginal.download = name;
  ui.downloadOriginal.textContent = `original bytes (${name})`;
  ui.downloadOriginal.hidden = false;
}

async function runCompress() {
  const data = demo.input;
  if (!data) return;
  ui.compress.disabled = true;
  ui.generate.disabled = true;
  ui.download.hidden = true;
  ui.downloadOriginal.hidden = true;
  setStatus('running', `Compressing ${bytes(data.length)} on the ${demo.backend.gpu ? 'GPU' : 'CPU'}…`);
  // Let the status paint before the work starts.
  await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  try {
    const result = await compress(data);
    demo.result = result;
    ui.path.textContent = result.path === 'GPU' ? `GPU: ${adapterLabel}` : result.adapter;
    ui.original.textContent = `${bytes(result.originalBytes)} (${result.originalBytes} bytes)`;
    ui.compressed.textContent = `${bytes(result.compressedBytes)} (${result.compressedBytes} bytes)`;
    ui.ratio.textContent = result.ratio.toFixed(3);
    ui.gpu.textContent = result.path === 'GPU'
      ? (rate(result.originalBytes, result.gpuMs)
        ? `${rate(result.originalBytes, result.gpuMs)} (${result.gpuMs.toFixed(2)} ms)`
        : 'n/a (no timestamp queries on this adapter)')
      : 'n/a (CPU path)';
    ui.wall.textContent = `${rate(result.originalBytes, result.wallMs)} (${result.wallMs.toFixed(1)} ms)`;
    ui.passes.textContent = result.passes.length
      ? result.passes.map(([label, ms]) => `${label} ${ms.toFixed(2)} ms`).join(', ')
      : '–';
    drawCharts(result);

    setStatus('verifying', 'Verifying with the wasm CPU decoder…');
    const t0 = performance.now();
    let ok = false, detail;
    try {
      const back = decompress_bytes(result.gz);
      ok = same_bytes(back, data);
      detail = ok
        ? `OK: ${back.length} bytes decoded in ${(performance.now() - t0).toFixed(1)} ms, identical to the input`
        : `MISMATCH: decoded ${back.length} bytes that differ from the input`;
    } catch (e) {
      detail = `FAILED: ${e.message ?? e}`;
    }
    demo.roundTrip = { ok, detail };
    ui.roundtrip.textContent = detail;
    ui.roundtrip.className = ok ? 'ok' : 'bad';
    offerDownloads(result.gz, data, demo.inputName);
    // Decoding on the GPU needs parvlc's framed files (block offsets in the native
    // headers, or in the gzip members' index): each encoded on the GPU, decoded on the
    // GPU, compared with the input.
    let gpuOk = true;
    if (result.path === 'GPU') {
      setStatus('verifying', 'Encoding to the native format and decoding it on the GPU…');
      let gpuDetail;
      try {
        const g = await gpuRoundTrip(data);
        gpuOk = g.ok && g.gzipOk;
        gpuDetail = gpuOk
          ? `OK: native ${bytes(g.nativeBytes)}; encode ${rate(data.length, g.encodeMs) ?? 'n/a'} (${g.encodeMs.toFixed(1)} ms), ` +
            `decode ${rate(data.length, g.decodeMs) ?? 'n/a'} (${g.decodeMs.toFixed(1)} ms); ` +
            `gzip ${bytes(g.gzipBytes)}; encode ${rate(data.length, g.gzipEncodeMs) ?? 'n/a'} (${g.gzipEncodeMs.toFixed(1)} ms), ` +
            `decode ${rate(data.length, g.gzipDecodeMs) ?? 'n/a'} (${g.gzipDecodeMs.toFixed(1)} ms); both identical to the input`
          : `MISMATCH: the GPU decoded bytes that differ from the input (${g.ok ? 'gzip' : 'native'})`;
        demo.gpuDecode = { ...g, detail: gpuDetail };
      } catch (e) {
        gpuOk = false;
        gpuDetail = `FAILED: ${e.message ?? e}`;
        demo.gpuDecode = { ok: false, detail: gpuDetail };
      }
      ui.gpuDecode.textContent = gpuDetail;
      ui.gpuDecode.className = gpuOk ? 'ok' : 'bad';
    } else {
      ui.gpuDecode.textContent = 'n/a (CPU path)';
      ui.gpuDecode.className = '';
    }
    const allOk = ok && gpuOk;
    setStatus(allOk ? 'done' : 'error', allOk
      ? `Done on the ${result.path}: ${bytes(result.originalBytes)} → ${bytes(result.compressedBytes)}, round trip verified.`
      : `Round trip failed: ${ok ? demo.gpuDecode.detail : detail}`);
  } catch (e) {
    console.error(e);
    setStatus('error', `Compression failed: ${e.message ?? e}`);
  } finally {
    ui.compress.disabled = false;
    ui.generate.disabled = false;
  }
}

// What the browser tells about its adapter (wgpu only sees `description`, often empty).
let adapterLabel = 'WebGPU';
async function describeAdapter(fallbackName) {
  try {
    const adapter = await navigator.gpu.requestAdapter();
    const i = adapter?.info ?? {};
    const parts = [i.vendor, i.architecture, i.device, i.description].filter(Boolean);
    const unique = [...new Set(parts)];
    return `${unique.length ? unique.join(' ') : fallbackName} (WebGPU)`;
  } catch {
    return `${fallbackName} (WebGPU)`;
  }
}

async function main() {
  await init();
  ui.backend.textContent = 'Opening the GPU and building the pipelines…';
  const backend = await openGpu();
  demo.backend = backend;
  if (backend.gpu) {
    adapterLabel = await describeAdapter(backend.adapter);
    backend.label = adapterLabel;
    ui.backend.textContent = `WebGPU adapter: ${adapterLabel}` +
      (backend.fallbackAdapter ? ' (a software fallback adapter)' : '') +
      `; pipelines built and checked in ${backend.warmUpMs.toFixed(0)} ms` +
      (backend.timestamps ? '' : '; no timestamp queries');
  } else {
    ui.banner.textContent = backend.message;
    if (backend.detail) {
      const small = document.createElement('small');
      small.textContent = backend.detail;
      ui.banner.append(document.createElement('br'), small);
    }
    ui.banner.hidden = false;
    ui.backend.textContent = 'No WebGPU: the CPU path (wasm, one thread).';
  }
  document.body.dataset.backend = backend.gpu ? 'gpu' : 'cpu';

  ui.entropy.addEventListener('input', () => { ui.entropyOut.textContent = ui.entropy.value; });
  ui.generate.addEventListener('click', () => {
    const len = Number(ui.size.value);
    const entropy = Number(ui.entropy.value);
    const seed = Number(ui.seed.value) >>> 0;
    const data = generate(len, entropy, seed);
    setInput(data, `sample-${entropy}bits-${len}B-seed${seed}.bin`);
  });
  ui.file.addEventListener('change', () => { if (ui.file.files[0]) readFile(ui.file.files[0]); });
  ui.drop.addEventListener('dragover', (e) => { e.preventDefault(); ui.drop.classList.add('over'); });
  ui.drop.addEventListener('dragleave', () => ui.drop.classList.remove('over'));
  ui.drop.addEventListener('drop', (e) => {
    e.preventDefault();
    ui.drop.classList.remove('over');
    const f = e.dataTransfer.files[0];
    if (f) readFile(f);
  });
  ui.compress.addEventListener('click', runCompress);
  ui.generate.disabled = false;
  document.body.dataset.ready = 'true';
}

main().catch((e) => {
  console.error(e);
  ui.backend.textContent = `Could not start: ${e.message ?? e}`;
  setStatus('error', `Could not start: ${e.message ?? e}`);
});
