// Browser test of the web demo (node --test): headless Chromium through playwright-core
// loads web/dist/ from a static server on 127.0.0.1 and runs two scenarios:
//   1. WebGPU on SwiftShader: a generated sample and a file of the test's own, each
//      compressed on the GPU; the page's round trip must be OK, and the downloaded .gz
//      must gunzip (node's zlib) to the input.
//   2. No WebGPU flags: the page must say so and take the CPU path, with the same checks.
// Screenshots and the reported numbers go to web/test/out/. No address but 127.0.0.1 is
// ever reached: every other request is aborted and fails the test.
//
// Environment: CHROMIUM (default /usr/bin/chromium).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.resolve(here, '..', 'dist');
const outDir = path.resolve(here, 'out');
const executablePath = process.env.CHROMIUM || '/usr/bin/chromium';

const COMMON_FLAGS = [
  '--no-sandbox', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync',
];
const WEBGPU_FLAGS = [
  '--enable-unsafe-webgpu', '--enable-features=Vulkan', '--use-vulkan=swiftshader',
  '--use-webgpu-adapter=swiftshader',
];

// SwiftShader's WebGPU is slow: small inputs, generous waits.
const SAMPLE_BYTES = 256 * 1024;
const STEP_TIMEOUT_MS = 240_000;

const MIME = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm', '.png': 'image/png', '.svg': 'image/svg+xml',
};

let server;
let baseUrl;

// The test stops by itself: should a browser outlive its test's timeout, this ends it.
setTimeout(() => {
  console.error('browser test: watchdog expired, exiting');
  process.exit(1);
}, 20 * 60 * 1000).unref();

before(async () => {
  assert.ok(fs.existsSync(path.join(dist, 'index.html')), `${dist} is not built: run web/build.sh`);
  assert.ok(fs.existsSync(executablePath), `no Chromium at ${executablePath}`);
  fs.rmSync(outDir, { recursive: true, force: true });
  fs.mkdirSync(outDir, { recursive: true });
  server = http.createServer((req, res) => {
    const { pathname } = new URL(req.url, 'http://127.0.0.1');
    const rel = decodeURIComponent(pathname === '/' ? '/index.html' : pathname);
    const file = path.resolve(dist, '.' + rel);
    if (!file.startsWith(dist + path.sep) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404).end('not found');
      return;
    }
    res.writeHead(200, {
      'content-type': MIME[path.extname(file)] ?? 'application/octet-stream',
      'cache-control': 'no-store',
    });
    fs.createReadStream(file).pipe(res);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${server.address().port}/`;
});

after(() => server?.close());

/** Deterministic text-like bytes of the test's own (skewed, so they compress). */
function ownInput(len) {
  const words = ['the ', 'GPU ', 'encodes ', 'bits ', 'in ', 'parallel, ', 'and ', 'gzip ',
    'reads ', 'them\n', 'Huffman ', 'codes ', 'of ', 'every ', 'byte; '];
  const out = Buffer.alloc(len);
  let x = 0x1234567;
  let at = 0;
  while (at < len) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    const w = words[(x >>> 16) % words.length];
    at += out.write(w, at, 'latin1');
  }
  return out;
}

async function launch(flags) {
  const browser = await chromium.launch({
    executablePath, headless: true, args: [...COMMON_FLAGS, ...flags], timeout: 60_000,
  });
  const context = await browser.newContext({
    acceptDownloads: true, viewport: { width: 1240, height: 900 },
  });
  const foreign = [];
  await context.route('**/*', (route) => {
    const u = new URL(route.request().url());
    if (u.hostname === '127.0.0.1') return route.continue();
    foreign.push(u.href);
    return route.abort();
  });
  const page = await context.newPage();
  page.setDefaultTimeout(STEP_TIMEOUT_MS);
  const log = [];
  page.on('console', (m) => log.push(`[console.${m.type()}] ${m.text()}`));
  page.on('pageerror', (e) => log.push(`[pageerror] ${e.message}`));
  return { browser, page, foreign, log };
}

async function download(page, selector) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  const file = await dl.path();
  return { name: dl.suggestedFilename(), bytes: fs.readFileSync(file) };
}

/** Compress what the page holds; return what it reports, after checking the round trip. */
async function compressAndCheck(page, expected, wantPath) {
  assert.equal(await page.getAttribute('#status', 'data-state'), 'ready');
  await page.click('#compress');
  await page.waitForFunction(
    () => ['done', 'error'].includes(document.getElementById('status').dataset.state),
    null, { timeout: STEP_TIMEOUT_MS },
  );
  const status = await page.textContent('#status');
  const roundTrip = await page.textContent('#r-roundtrip');
  const report = await page.evaluate(() => {
    const r = window.parvlcDemo.result;
    return {
      path: r.path, adapter: r.adapter, originalBytes: r.originalBytes,
      compressedBytes: r.compressedBytes, ratio: r.ratio, wallMs: r.wallMs, gpuMs: r.gpuMs,
      roundTrip: window.parvlcDemo.roundTrip,
      gpuDecode: window.parvlcDemo.gpuDecode,
      shown: {
        ranOn: document.getElementById('r-path').textContent,
        gpu: document.getElementById('r-gpu').textContent,
        wall: document.getElementById('r-wall').textContent,
      },
    };
  });
  assert.equal(await page.getAttribute('#status', 'data-state'), 'done', status);
  assert.match(roundTrip, /^OK: /, 'the page reports a verified round trip');
  assert.equal(report.roundTrip.ok, true);
  assert.equal(report.path, wantPath);
  assert.equal(report.originalBytes, expected.length);
  if (wantPath === 'GPU') {
    // Encoded into the native framed format and into framed gzip, each decoded by vld,
    // all on the GPU.
    assert.equal(report.gpuDecode?.ok, true, `GPU decode: ${report.gpuDecode?.detail}`);
    assert.equal(report.gpuDecode?.gzipOk, true, `GPU gzip decode: ${report.gpuDecode?.detail}`);
    assert.match(await page.textContent('#r-gpu-decode'), /^OK: /, 'the page reports the GPU decode');
    assert.ok(report.gpuDecode.nativeBytes < expected.length, 'the native file is smaller than the input');
  } else {
    assert.equal(report.gpuDecode, null, 'no GPU decode on the CPU path');
  }

  const gz = await download(page, '#download');
  assert.match(gz.name, /\.gz$/);
  assert.equal(gz.bytes.length, report.compressedBytes);
  const back = zlib.gunzipSync(gz.bytes);
  assert.ok(back.equals(expected), 'the downloaded .gz gunzips to the input');
  assert.ok(gz.bytes.length < expected.length, 'the input compresses');
  return { ...report, status, gzName: gz.name, gzBytes: gz.bytes.length };
}

async function scenario(t, { name, flags, wantPath, feed }) {
  const { browser, page, foreign, log } = await launch(flags);
  t.signal?.addEventListener('abort', () => browser.close().catch(() => {}));
  const results = {};
  try {
    await page.goto(baseUrl);
    await page.waitForSelector('body[data-ready=true]', { timeout: 120_000 });
    const backend = await page.evaluate(() => window.parvlcDemo.backend);
    results.backend = backend;
    const banner = await page.isVisible('#banner');
    if (wantPath === 'GPU') {
      assert.equal(backend.gpu, true, `WebGPU adapter expected: ${backend.message}`);
      assert.equal(banner, false);
    } else {
      assert.equal(backend.gpu, false);
      assert.equal(banner, true, 'the page says WebGPU is missing');
      assert.match(await page.textContent('#banner'), /WebGPU/);
      assert.match(await page.textContent('#backend'), /CPU/);
    }

    // A file of the test's own, dropped on the drop zone or picked with the file input.
    const own = ownInput(200 * 1024 + 13);
    if (feed === 'drop') {
      const transfer = await page.evaluateHandle((bytes) => {
        const dt = new DataTransfer();
        dt.items.add(new File([new Uint8Array(bytes)], 'own-input.txt', { type: 'text/plain' }));
        return dt;
      }, Array.from(own));
      await page.dispatchEvent('#drop', 'drop', { dataTransfer: transfer });
    } else {
      await page.setInputFiles('#file', { name: 'own-input.txt', mimeType: 'text/plain', buffer: own });
    }
    await page.waitForFunction(() => window.parvlcDemo.inputName === 'own-input.txt');
    results.ownFile = await compressAndCheck(page, own, wantPath);

    // A generated sample: entropy slider at 4.5 bits, 256 KiB.
    await page.fill('#entropy', '4.5');
    await page.selectOption('#size', String(SAMPLE_BYTES));
    await page.click('#generate');
    await page.waitForFunction((n) => window.parvlcDemo.input?.length === n, SAMPLE_BYTES);
    assert.equal(await page.isHidden('#download'), true, 'no stale download link before compressing');
    const sampleBytes = Buffer.from(await page.evaluate(() => Array.from(window.parvlcDemo.input)));
    results.sample = await compressAndCheck(page, sampleBytes, wantPath);
    const orig = await download(page, '#download-original');
    assert.ok(orig.bytes.equals(sampleBytes), 'the page offers the original bytes it compressed');

    const shot = path.join(outDir, `${name}.png`);
    await page.screenshot({ path: shot, fullPage: true });
    results.screenshot = shot;
    assert.deepEqual(foreign, [], 'only 127.0.0.1 was requested');
  } catch (e) {
    const shot = path.join(outDir, `${name}-failed.png`);
    await page.screenshot({ path: shot, fullPage: true }).catch(() => {});
    t.diagnostic(`page log:\n${log.join('\n')}\nscreenshot: ${shot}`);
    throw e;
  } finally {
    await browser.close();
  }
  const summary = path.join(outDir, `${name}.json`);
  fs.writeFileSync(summary, JSON.stringify({ ...results, log }, null, 2));
  for (const [what, r] of [[`own file (${feed})`, results.ownFile], ['sample', results.sample]]) {
    console.log(`${name} ${what}: ${r.shown.ranOn}; ${r.originalBytes} -> ${r.compressedBytes} bytes ` +
      `(ratio ${r.ratio.toFixed(3)}); GPU ${r.shown.gpu}; wall ${r.shown.wall}; ` +
      `round trip: ${r.roundTrip.detail}; GPU both ways: ${r.gpuDecode?.detail ?? 'n/a'}; ` +
      `${r.gzName} gunzips to the input`);
  }
  console.log(`${name}: screenshot ${results.screenshot}, report ${summary}`);
}

test('WebGPU on SwiftShader: GPU compression, round trip, .gz download', { timeout: 900_000 },
  (t) => scenario(t, { name: 'webgpu', flags: WEBGPU_FLAGS, wantPath: 'GPU', feed: 'drop' }));

test('without WebGPU: the page says so and compresses on the CPU', { timeout: 600_000 },
  (t) => scenario(t, { name: 'no-webgpu', flags: [], wantPath: 'CPU', feed: 'file input' }));
