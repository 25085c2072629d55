// Drives an `fwprof html` report in headless Chromium (Debian's
// /usr/bin/chromium through playwright-core from $FWPROF_NODE_MODULES) and
// checks what a reader does with it. Run by crates/fwprof-cli/tests/html.rs:
//
//   node check.mjs '{"html": "/abs/report.html", "mode": "full", ...}'
//
// Options (one JSON argument):
//   html         absolute path of the report
//   mode         "full": every view of a recorded profile; "big": the
//                synthetic 10,000-function profile (responsiveness);
//                "small": a synthetic profile
//   no_contexts  true if the profile has no calling-context tree
//   expect       [{event, name, self}]: for each event (index), the function
//                `fwprof report --format json` ranks hottest and its self cost
//   source       true if the annotation must show source text
//   hostile      names that must show literally (and run no script)
//   ready_ms     the page must be ready within this many milliseconds
//   screenshots  directory to write html-report.png and html-annotate.png to
//
// Fails (exit 1, reasons on stderr) on any console error, page error,
// dialog, failed request or request for anything but the report itself.
import { createRequire } from 'module';
import path from 'path';

const opts = JSON.parse(process.argv[2]);
const modules = process.env.FWPROF_NODE_MODULES;
if (!modules) throw new Error('FWPROF_NODE_MODULES is not set');
const require = createRequire(import.meta.url);
const { chromium } = require(path.join(modules, 'playwright-core'));

const problems = [];
function check(cond, what) {
  if (!cond) problems.push(what);
  return cond;
}

// page.waitForFunction polls with eval, which the report's
// Content-Security-Policy forbids: poll with page.evaluate instead.
async function waitFor(page, fn, arg, timeout) {
  const end = Date.now() + (timeout || 3000);
  for (;;) {
    if (await page.evaluate(fn, arg)) return;
    if (Date.now() > end) throw new Error('timed out after ' + (timeout || 3000) + ' ms');
    await new Promise((r) => setTimeout(r, 50));
  }
}

const url = 'file://' + opts.html;
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
});
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on('console', (m) => { if (m.type() === 'error') problems.push('console error: ' + m.text()); });
  page.on('pageerror', (e) => problems.push('page error: ' + e.message));
  page.on('dialog', async (d) => { problems.push('dialog opened: ' + d.message()); await d.dismiss(); });
  page.on('requestfailed', (r) => problems.push('failed request: ' + r.url()));
  page.on('request', (r) => {
    const u = r.url().split('#')[0];
    if (u !== url) problems.push('request for something else than the report: ' + u);
  });

  const t0 = Date.now();
  await page.goto(url);
  await page.waitForSelector('body[data-ready="1"]', { timeout: opts.ready_ms });
  const readyMs = Date.now() - t0;
  console.log(`ready after ${readyMs} ms`);
  check(readyMs <= opts.ready_ms, `page ready after ${readyMs} ms, more than ${opts.ready_ms}`);
  // Screenshot for docs/html-report.md: the summary and flat profile.
  if (opts.screenshots) {
    await page.waitForTimeout(150);
    await page.screenshot({ path: path.join(opts.screenshots, 'html-report.png') });
  }

  const firstRow = async () => page.evaluate((e) => {
    const tr = document.querySelector('#flat tbody tr.row');
    if (!tr) return null;
    const cell = tr.querySelector(`td[data-col="self:${e}"]`);
    return { name: tr.querySelector('td.name a').textContent, self: cell ? cell.dataset.v : null, fid: tr.dataset.fid };
  }, 0);
  const rowNames = async () => page.$$eval('#flat tbody tr.row td.name a', (as) => as.map((a) => a.textContent));

  // The flat profile: hottest first, with report's self value, per event.
  for (const x of opts.expect) {
    if (x.event !== 0) await page.selectOption('#event', String(x.event));
    const row = await page.evaluate((e) => {
      const tr = document.querySelector('#flat tbody tr.row');
      return { name: tr.querySelector('td.name a').textContent, self: tr.querySelector(`td[data-col="self:${e}"]`).dataset.v };
    }, x.event);
    check(row.name === x.name, `event ${x.event}: first row is ${row.name}, report says ${x.name}`);
    check(row.self === String(x.self), `event ${x.event}: ${row.name} self ${row.self}, report says ${x.self}`);
    console.log(`event ${x.event}: first row ${row.name} self ${row.self}`);
  }
  if (opts.expect.some((x) => x.event !== 0)) {
    await page.selectOption('#event', '0');
  }
  const hottest = opts.expect[0];

  // No number, percentage or header of the flat profile is cut off (the
  // inclusive % of main, 100.00%, was shown as "100.0…").
  const cut = await page.$$eval('#flat th, #flat tbody tr.row td:not(.name)', (cells) =>
    cells.filter((c) => c.scrollWidth > c.clientWidth).map((c) => (c.dataset.col || c.dataset.key) + '=' + c.textContent));
  check(cut.length === 0, `flat profile cells cut off: ${cut.slice(0, 5).join(', ')}`);

  // Sorting by any header, both ways.
  const colValues = (key) => page.$$eval(`#flat tbody tr.row td[data-col="${key}"]`, (tds) => tds.map((td) => Number(td.dataset.v)));
  await page.click('#flat th[data-key="calls"]');
  let v = await colValues('calls');
  check(v.length > 1 && v.every((x, i) => i === 0 || v[i - 1] >= x), 'calls descending after one click: ' + v.slice(0, 8));
  await page.click('#flat th[data-key="calls"]');
  v = await colValues('calls');
  check(v.every((x, i) => i === 0 || v[i - 1] <= x), 'calls ascending after two clicks: ' + v.slice(0, 8));
  await page.click('#flat th[data-key="incl:0"]');
  v = await colValues('incl:0');
  check(v.every((x, i) => i === 0 || v[i - 1] >= x), 'inclusive descending: ' + v.slice(0, 8));
  await page.click('#flat th[data-key="name"]');
  const names = await rowNames();
  check(names.every((x, i) => i === 0 || names[i - 1] <= x), 'names ascending: ' + names.slice(0, 5));
  await page.click('#flat th[data-key="self:0"]');
  check((await firstRow()).name === hottest.name, 'self sort restores the hottest first');

  // The search box filters by name.
  const query = opts.mode !== 'full' ? 'leaf_00' : hottest.name.slice(0, Math.max(3, hottest.name.length - 1));
  await page.fill('#search', query);
  await waitFor(page, (q) => {
    const as = [...document.querySelectorAll('#flat tbody tr.row td.name a')];
    return as.length > 0 && as.every((a) => a.textContent.toLowerCase().includes(q.toLowerCase()));
  }, query, 3000).catch((e) => check(false, `search ${query} did not filter the table: ${e.message.split('\n')[0]}`));
  console.log('search:', query, '->', await page.textContent('#flat-count'));
  for (const name of opts.hostile || []) {
    await page.fill('#search', name);
    await waitFor(page, (n) => {
      const as = [...document.querySelectorAll('#flat tbody tr.row td.name a')];
      return as.length === 1 && as[0].textContent === n;
    }, name, 3000).catch(() => check(false, `hostile name ${name} not shown literally`));
  }
  await page.fill('#search', '');
  await waitFor(page, (n) => {
    const a = document.querySelector('#flat tbody tr.row td.name a');
    return a && a.textContent === n;
  }, hottest.name, 3000);

  if (opts.mode === 'big') {
    const rendered = await page.$$eval('#flat tbody tr.row', (r) => r.length);
    check(rendered > 10 && rendered < 300, `${rendered} table rows in the DOM (the table must draw only what is visible)`);
    check((await page.textContent('#flat-count')).startsWith('10,'), 'count names 10,000+ functions');
    const t1 = Date.now();
    await page.$eval('#flat-wrap', (w) => { w.scrollTop = w.scrollHeight; });
    await waitFor(page, () => {
      const w = document.getElementById('flat-wrap');
      const rows = document.querySelectorAll('#flat tbody tr.row');
      return rows.length > 0 && w.scrollTop > 0 && rows[0].getBoundingClientRect().top <= w.getBoundingClientRect().bottom;
    }, null, 3000);
    console.log(`scrolled to the end in ${Date.now() - t1} ms`);
  }

  // Clicking a function opens its call graph and annotation.
  await page.$eval('#flat-wrap', (w) => { w.scrollTop = 0; });
  await waitFor(page, (n) => document.querySelector('#flat tbody tr.row td.name a')?.textContent === n, hottest.name, 3000);
  await page.click(`#flat tbody tr.row[data-fid="${(await firstRow()).fid}"] td.name a`);
  await page.waitForSelector('#annotation');
  check((await page.textContent('#fn-name')) === hottest.name, 'the function view shows the clicked function');
  const ann = await page.evaluate(() => {
    const src = [...document.querySelectorAll('#ann-table tr.src.hot')];
    const asm = [...document.querySelectorAll('#ann-table tr.asm')];
    return {
      src: src.length,
      srcText: src.filter((r) => !r.querySelector('td.code').classList.contains('missing')).length,
      hotAsm: asm.filter((r) => r.classList.contains('hot')).length,
      asmSum: asm.reduce((s, r) => s + Number(r.dataset.count), 0),
    };
  });
  console.log('annotation:', JSON.stringify(ann));
  check(ann.hotAsm >= 1, 'at least one annotated instruction');
  check(ann.asmSum === Number(hottest.self), `instruction counts add up to ${ann.asmSum}, self is ${hottest.self}`);
  if (opts.source) {
    check(ann.src >= 1 && ann.srcText >= 1, 'at least one annotated source line with its text');
    await page.selectOption('#ann-mode', 'source');
    const srcOnly = await page.$$eval('#ann-table tr.src.hot', (r) => r.length);
    check(srcOnly >= 1, 'source-only view has annotated lines');
    await page.selectOption('#ann-mode', 'mixed');
  }
  const callers = await page.$$eval('#callers tbody tr', (r) => r.length);
  check(callers >= 1, 'the call graph lists callers');
  const callee = await page.$('#callees a.fn');
  if (callee || opts.mode === 'full') {
    const calleeName = callee ? await callee.textContent() : null;
    if (check(callee !== null, 'the hottest function has a callee to follow')) {
      await callee.click();
      await waitFor(page, (n) => document.getElementById('fn-name')?.textContent === n, calleeName, 3000)
        .catch(() => check(false, `clicking callee ${calleeName} did not open it`));
      await page.goBack();
      await waitFor(page, (n) => document.getElementById('fn-name')?.textContent === n, hottest.name, 3000)
        .catch(() => check(false, 'back did not return to the hottest function'));
    }
  }

  // The flame graph: drawn, hover shows a tooltip, click zooms; a note
  // instead when the profile has no calling-context tree.
  if (opts.no_contexts) {
    await page.click('header nav a[href="#flame"]');
    // The tab switches on `hashchange`, which fires after the click returns.
    const shown = await page.waitForSelector('#flame-none', { state: 'visible', timeout: 5000 })
      .then(() => true, () => false);
    check(shown, 'a profile without contexts shows a note instead of a flame graph');
    check((await page.$('canvas#flame')) === null, 'no flame graph canvas without contexts');
  } else {
  const t2 = Date.now();
  await page.click('header nav a[href="#flame"]');
  await page.waitForSelector('canvas#flame[data-nodes]', { timeout: 5000 });
  console.log(`flame graph drawn in ${Date.now() - t2} ms`);
  const flame = await page.evaluate(() => {
    const c = document.getElementById('flame');
    const g = c.getContext('2d');
    const d = g.getImageData(0, 0, c.width, c.height).data;
    let painted = 0;
    for (let i = 3; i < d.length; i += 4 * 7) if (d[i] !== 0) painted++;
    const r = c.getBoundingClientRect();
    return { nodes: Number(c.dataset.nodes), painted, w: r.width, h: r.height, x: r.left, y: r.top };
  });
  console.log('flame:', JSON.stringify(flame));
  check(flame.nodes >= 3 && flame.painted > 100, 'the flame graph draws boxes');
  // Root ("all") is the bottom row; the row above holds the first root context.
  await page.mouse.move(flame.x + flame.w / 2, flame.y + flame.h - 8);
  const tip = await page.textContent('#flame-tip');
  check(await page.isVisible('#flame-tip') && tip.startsWith('all') && tip.includes('100.00% of total'), 'hovering the root shows a tooltip: ' + tip);
  await page.mouse.click(flame.x + 5, flame.y + flame.h - 17 - 8);
  await waitFor(page, () => document.getElementById('flame-detail').textContent.startsWith('Zoomed to'), null, 3000)
    .catch((e) => check(false, 'clicking a frame did not zoom: ' + e.message.split('\n')[0]));
  await page.click('#flame-reset');
  }

  // Screenshot for docs/html-report.md: the hottest function's annotation
  // in cycles (if recorded), at its hottest line.
  if (opts.screenshots) {
    await page.click('header nav a[href="#profile"]');
    await page.click(`#flat tbody tr.row td.name a >> text="${hottest.name}"`);
    await page.waitForSelector('#annotation');
    const cycles = await page.$$eval('#event option', (os) => os.findIndex((o) => o.textContent === 'cycles'));
    if (cycles >= 0) await page.selectOption('#event', String(cycles));
    await page.click('#ann-hottest');
    await page.waitForTimeout(150);
    await page.screenshot({ path: path.join(opts.screenshots, 'html-annotate.png') });
  }
} finally {
  await browser.close();
}

if (problems.length) {
  console.error('FAILED:\n  ' + problems.join('\n  '));
  process.exit(1);
}
console.log('ok');
