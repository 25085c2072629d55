// fwprof HTML report: draws the profile embedded in #fwprof-data (the JSON
// described in crates/fwprof-export/src/html.rs) as a summary, a flat
// profile, a call graph per function, source/disassembly annotation and a
// flame graph. Names and source text are only ever inserted as text.
'use strict';
(function () {
  const D = JSON.parse(document.getElementById('fwprof-data').textContent);
  const EV = D.events;
  const NE = EV.length;
  const FN = D.functions; // [name, start, end, calls, file, line, self[], inclusive[]]
  const NF = FN.length;
  const TOT = D.totals;
  const NAME = 0, START = 1, END = 2, CALLS = 3, FILE = 4, LINE = 5, SELF = 6, INCL = 7;

  const state = {
    ev: Math.min(D.event || 0, Math.max(0, NE - 1)),
    view: 'profile',
    fn: -1,
  };

  // ---------------------------------------------------------------- helpers
  function el(tag, props, children) {
    const e = document.createElement(tag);
    if (props) {
      for (const k of Object.keys(props)) {
        const v = props[k];
        if (v === undefined || v === null) continue;
        if (k === 'text') e.textContent = v;
        else if (k === 'class') e.className = v;
        else if (k === 'data') Object.assign(e.dataset, v);
        else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
        else e.setAttribute(k, v);
      }
    }
    if (children) for (const c of children) if (c !== null && c !== undefined) e.append(c);
    return e;
  }
  const numFmt = new Intl.NumberFormat('en-US');
  const fmt = (n) => numFmt.format(n);
  const num2Fmt = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  const fmt2 = (n) => num2Fmt.format(n);
  const pct = (a, b) => (b ? (100 * a) / b : 0);
  const fmtPct = (p) => p.toFixed(2) + '%';
  const unit = (e) => (EV[e] === 'instructions' ? 'instrs' : EV[e]);
  function fnLink(id) {
    const name = FN[id][NAME];
    return el('a', { class: 'fn', href: '#fn=' + id, title: name, text: name });
  }
  function derivedValue(d, costs) {
    const den = costs[d.den];
    if (!den) return null;
    return costs[d.num] / den;
  }
  function fmtDerived(d, v) {
    if (v === null) return '';
    return d.rate ? (100 * v).toFixed(2) + '%' : v.toFixed(2);
  }
  function debounce(f, ms) {
    let t = 0;
    return function () {
      clearTimeout(t);
      t = setTimeout(f, ms);
    };
  }
  function cellNum(v, cls) {
    return el('td', { class: cls || 'num', text: fmt(v), data: { v: String(v) } });
  }

  // Arcs by callee and by caller.
  const inArcs = Array.from({ length: NF }, () => []);
  const outArcs = Array.from({ length: NF }, () => []);
  D.arcs.forEach((a, i) => {
    inArcs[a[1]].push(i);
    if (a[0] >= 0) outArcs[a[0]].push(i);
  });

  // ----------------------------------------------------------------- layout
  const progName = D.meta.program.split('/').pop();
  const evSelect = el('select', { id: 'event', title: 'Event shown in every view' });
  EV.forEach((name, i) => evSelect.append(el('option', { value: String(i), text: name })));
  evSelect.value = String(state.ev);
  const tabProfile = el('a', { href: '#profile', text: 'Flat profile' });
  const tabFlame = el('a', { href: '#flame', text: 'Flame graph' });
  const tabFn = el('a', { href: '#fn=0', text: 'Function' });
  document.body.append(
    el('header', { class: 'top' }, [
      el('h1', null, ['fwprof', el('span', { class: 'prog', text: progName, title: D.meta.program })]),
      el('nav', null, [tabProfile, tabFlame, tabFn]),
      el('label', null, ['Event', evSelect]),
    ])
  );
  const vProfile = el('section', { class: 'view', id: 'v-profile' });
  const vFlame = el('section', { class: 'view', id: 'v-flame' });
  const vFn = el('section', { class: 'view', id: 'v-fn' });
  document.body.append(el('main', null, [vProfile, vFlame, vFn]));

  // ---------------------------------------------------------------- summary
  function renderSummary() {
    const m = D.meta;
    const box = el('div', { id: 'summary' });
    if (m.partial) {
      box.append(el('div', { class: 'banner', id: 'partial' }, [
        el('b', { text: 'Partial profile: ' }), m.partial + ' (the run did not finish; costs cover what ran)',
      ]));
    }
    const dl = el('dl', { class: 'summary' });
    const row = (k, v) => { if (v !== null && v !== undefined && v !== '') dl.append(el('dt', { text: k }), el('dd', null, [v])); };
    row('Program', el('code', { text: m.program }));
    row('SHA-256', el('code', { text: m.sha256 }));
    row('Build ID', m.build_id ? el('code', { text: m.build_id }) : null);
    row('Target', (m.target === 'linux' ? 'Linux user mode' : 'bare metal (semihosting)') + ', ' + m.isa + ' (' + m.xlen + '-bit)');
    row('Core model', m.core ? m.core : 'none: instructions only (record --core adds cycles and stalls)');
    row('Method', m.method ? m.method : 'exact: every instruction counted');
    row('Command line', el('code', { text: m.command.join(' ') }));
    if (m.environment.length) {
      const det = el('details', null, [el('summary', { text: m.environment.length + ' variables' })]);
      for (const v of m.environment) det.append(el('div', null, [el('code', { text: v })]));
      row('Environment', det);
    } else if (m.environment_count) {
      row('Environment', m.environment_count + ' variables; values not saved (record --save-env stores them)');
    }
    row('Exit status', m.exit_status === null ? (m.partial ? 'none (partial run)' : 'none') : String(m.exit_status));
    row('Recorded', m.start_time ? new Date(m.start_time * 1000).toISOString().replace('T', ' ').replace('.000Z', ' UTC') : null);
    row('Recorded by', m.fwprof_version ? 'fwprof ' + m.fwprof_version + ', profile format ' + m.format_version : null);
    row('Annotation from', m.annotation_program ? el('code', { text: m.annotation_program }) : 'the profile alone (no program)');
    let warn = null;
    if (m.warnings.length || m.annotation_note) {
      const ul = el('ul', { id: 'warnings' });
      for (const w of m.warnings) ul.append(el('li', { text: w }));
      if (m.annotation_note) ul.append(el('li', { text: m.annotation_note }));
      warn = el('div', { class: 'banner' }, [el('b', { text: 'Warnings' }), ul]);
    }
    const cards = el('div', { class: 'cards' }, [el('div', null, [el('h3', { text: 'Run' }), dl])]);
    // Totals: events in two column pairs when there are many.
    const pairs = NE > 6 ? 2 : 1;
    const per = Math.ceil(NE / pairs);
    const headRow = el('tr');
    for (let k = 0; k < pairs; k++) headRow.append(el('th', { text: 'Event' }), el('th', { class: 'num', text: 'Total' }));
    const totals = el('table', { class: 'grid', id: 'totals' }, [el('thead', null, [headRow])]);
    const tb = el('tbody');
    for (let r = 0; r < per; r++) {
      const tr = el('tr');
      for (let k = 0; k < pairs; k++) {
        const e = r + k * per;
        if (e >= NE) break;
        const sel = e === state.ev ? 'sel' : '';
        tr.append(el('td', { class: sel, text: EV[e], data: { ev: String(e) } }), el('td', { class: 'num ' + sel, text: fmt(TOT[e]), data: { ev: String(e), v: String(TOT[e]) } }));
      }
      tb.append(tr);
    }
    totals.append(tb);
    const totalsCard = el('div', null, [el('h3', { text: 'Totals' }), totals]);
    cards.append(totalsCard);
    if (D.derived.length) {
      const rt = el('table', { class: 'grid', id: 'ratios' }, [el('thead', null, [el('tr', null, [el('th', { text: 'Ratio' }), el('th', { class: 'num', text: 'Whole run' })])])]);
      const rb = el('tbody');
      for (const d of D.derived) {
        rb.append(el('tr', null, [el('td', { text: d.header, title: EV[d.num] + ' / ' + EV[d.den] }),
          el('td', { class: 'num', text: fmtDerived(d, derivedValue(d, TOT)) })]));
      }
      rt.append(rb);
      totalsCard.append(el('h3', { text: 'Ratios (self costs of the whole run)' }), rt);
    }
    if (D.traps.length) {
      const t = el('table', { class: 'grid', id: 'traps' }, [el('thead', null, [el('tr', null, [
        el('th', { text: 'Cause' }), el('th', { text: 'PC' }), el('th', { text: 'Function' }), el('th', { class: 'num', text: 'Count' }),
      ])])]);
      const body = el('tbody');
      for (const tr of D.traps) {
        body.append(el('tr', null, [
          el('td', { text: (tr[1] || 'cause') + ' (0x' + tr[0] + ')' }),
          el('td', { class: 'mono', text: '0x' + tr[2] }),
          el('td', null, [tr[3] >= 0 ? fnLink(tr[3]) : '?']),
          cellNum(tr[4]),
        ]));
      }
      t.append(body);
      cards.append(el('div', null, [el('h3', { text: 'Traps' }), t]));
    }
    box.append(cards);
    if (warn) box.append(warn);
    return box;
  }

  // ----------------------------------------------------------- flat profile
  const flat = {
    ids: [],
    cols: [],
    sort: { key: 'self:' + state.ev, dir: -1 },
    filter: '',
    showIdle: false,
    shown: new Set(),
    shownDerived: new Set(),
    rowH: 23,
    table: null,
    tbody: null,
    wrap: null,
    count: null,
    pending: false,
  };
  // Events shown by default: all of a small set, else instructions,
  // cycles and the selected event; CPI if present.
  if (NE <= 4) EV.forEach((_, e) => flat.shown.add(e));
  else {
    flat.shown.add(0);
    const c = EV.indexOf('cycles');
    if (c >= 0) flat.shown.add(c);
    flat.shown.add(state.ev);
  }
  for (const d of D.derived) if (d.name === 'cpi' || D.derived.length === 1) flat.shownDerived.add(d.name);

  function flatColumns() {
    const cols = [
      { key: 'name', label: 'Function', w: 300, cls: 'name', cell: (id) => el('td', { class: 'name' }, [fnLink(id)]) },
      { key: 'calls', label: 'calls', w: 90, num: true, value: (id) => FN[id][CALLS] },
    ];
    const evs = [...flat.shown].sort((a, b) => a - b);
    for (const e of evs) {
      const u = unit(e);
      const w = Math.max(110, Math.ceil(u.length * 7.6) + 62);
      cols.push({ key: 'self:' + e, ev: e, label: 'self ' + u, title: 'self ' + EV[e] + ': cost of the function\'s own instructions', w, num: true, value: (id) => FN[id][SELF][e] });
      cols.push({ key: 'selfpct:' + e, ev: e, label: '%', title: 'self ' + EV[e] + ' in % of the total', w: 80, pct: true, value: (id) => FN[id][SELF][e], show: (id) => fmtPct(pct(FN[id][SELF][e], TOT[e])) });
      cols.push({ key: 'incl:' + e, ev: e, label: 'incl. ' + u, title: 'inclusive ' + EV[e] + ': the function and everything it called', w, num: true, value: (id) => FN[id][INCL][e] });
      cols.push({ key: 'inclpct:' + e, ev: e, label: '%', title: 'inclusive ' + EV[e] + ' in % of the total', w: 80, pct: true, value: (id) => FN[id][INCL][e], show: (id) => fmtPct(pct(FN[id][INCL][e], TOT[e])) });
    }
    for (const d of D.derived) {
      if (!flat.shownDerived.has(d.name)) continue;
      cols.push({ key: 'derived:' + d.name, label: d.header, title: d.header + ' = self ' + EV[d.num] + ' / self ' + EV[d.den], w: 100, num: true,
        value: (id) => derivedValue(d, FN[id][SELF]), show: (id) => fmtDerived(d, derivedValue(d, FN[id][SELF])) });
    }
    return cols;
  }

  function flatSortAndFilter() {
    const q = flat.filter.toLowerCase();
    const ids = [];
    for (let i = 0; i < NF; i++) {
      const f = FN[i];
      if (q && f[NAME].toLowerCase().indexOf(q) < 0) continue;
      if (!flat.showIdle && !q && f[CALLS] === 0 && f[SELF].every((v) => v === 0) && f[INCL].every((v) => v === 0)) continue;
      ids.push(i);
    }
    const col = flat.cols.find((c) => c.key === flat.sort.key) || flat.cols[2] || flat.cols[0];
    const dir = flat.sort.dir;
    const byName = (a, b) => {
      const na = FN[a][NAME], nb = FN[b][NAME];
      return na < nb ? -1 : na > nb ? 1 : a - b;
    };
    if (col.key === 'name') ids.sort((a, b) => dir * byName(a, b));
    else {
      const v = new Float64Array(NF);
      const has = new Uint8Array(NF);
      for (const i of ids) {
        const x = col.value(i);
        if (x !== null) { v[i] = x; has[i] = 1; }
      }
      ids.sort((a, b) => (has[b] - has[a]) || (dir * (v[a] - v[b])) || byName(a, b));
    }
    flat.ids = ids;
    flat.count.textContent = fmt(ids.length) + ' of ' + fmt(NF) + ' functions';
  }

  function flatHeader() {
    const colgroup = el('colgroup');
    const tr = el('tr');
    let width = 0;
    for (const c of flat.cols) {
      colgroup.append(el('col', { style: 'width:' + c.w + 'px' }));
      width += c.w;
      let cls = c.num || c.pct ? 'num' : '';
      if (c.key === flat.sort.key) cls += ' sorted';
      if (c.ev === state.ev) cls += ' evsel';
      const arrow = c.key === flat.sort.key ? (flat.sort.dir < 0 ? ' \u25BC' : ' \u25B2') : '';
      tr.append(el('th', { class: cls, title: (c.title || c.label) + ' (click to sort)', data: { key: c.key }, text: c.label + arrow,
        onclick: () => {
          if (flat.sort.key === c.key) flat.sort.dir = -flat.sort.dir;
          else flat.sort = { key: c.key, dir: c.key === 'name' ? 1 : -1 };
          renderFlat();
        } }));
    }
    flat.table.style.width = width + 'px';
    return [colgroup, el('thead', null, [tr])];
  }

  // Draws the rows around the visible ones (in steps of 10 rows, so small
  // scrolls redraw nothing); `force` redraws even if the window is the same.
  function flatRows(force) {
    flat.pending = false;
    const wrap = flat.wrap, n = flat.ids.length, h = flat.rowH;
    const first = Math.max(0, Math.floor(wrap.scrollTop / h / 10) * 10 - 20);
    const last = Math.min(n, first + Math.ceil((wrap.clientHeight || 800) / h) + 50);
    if (!force && flat.win && flat.win[0] === first && flat.win[1] === last && flat.win[2] === n) return;
    flat.win = [first, last, n];
    const ncol = flat.cols.length;
    const spacer = (px) => el('tr', { class: 'spacer' }, [el('td', { colspan: String(ncol), style: 'height:' + px + 'px' })]);
    const rows = [spacer(first * h)];
    for (let k = first; k < last; k++) {
      const id = flat.ids[k];
      const tr = el('tr', { class: 'row', data: { fid: String(id) } });
      for (const c of flat.cols) {
        if (c.cell) tr.append(c.cell(id));
        else if (c.show) tr.append(el('td', { class: c.pct ? 'pct' : 'num', text: c.show(id), data: { col: c.key } }));
        else {
          const v = c.value(id);
          tr.append(el('td', { class: 'num', text: fmt(v), data: { col: c.key, v: String(v) } }));
        }
      }
      rows.push(tr);
    }
    rows.push(spacer((n - last) * h));
    flat.tbody.replaceChildren(...rows);
    if (n > 0 && first === 0 && flat.tbody.rows.length > 1) {
      const measured = flat.tbody.rows[1].getBoundingClientRect().height;
      if (measured > 0 && Math.abs(measured - flat.rowH) > 0.5) {
        flat.rowH = measured;
        flatRows(true);
      }
    }
  }

  function renderFlat() {
    flat.cols = flatColumns();
    if (!flat.cols.some((c) => c.key === flat.sort.key)) flat.sort = { key: 'self:' + state.ev, dir: -1 };
    flatSortAndFilter();
    const [colgroup, thead] = flatHeader();
    flat.tbody = el('tbody');
    flat.table.replaceChildren(colgroup, thead, flat.tbody);
    flatRows(true);
  }

  function buildProfileView() {
    vProfile.append(renderSummary());
    vProfile.append(el('h2', { text: 'Flat profile' }));
    const search = el('input', { type: 'search', id: 'search', placeholder: 'Filter functions by name', autocomplete: 'off' });
    search.addEventListener('input', debounce(() => {
      flat.filter = search.value;
      flat.wrap.scrollTop = 0;
      flatSortAndFilter();
      flatRows(true);
    }, 120));
    flat.count = el('span', { class: 'muted', id: 'flat-count' });
    const menu = el('div', { class: 'menu' });
    const colBox = (label, checked, onchange) => {
      const cb = el('input', { type: 'checkbox' });
      cb.checked = checked;
      cb.addEventListener('change', () => onchange(cb.checked));
      return el('label', null, [cb, ' ' + label]);
    };
    EV.forEach((name, e) => menu.append(colBox(name, flat.shown.has(e), (on) => {
      if (on) flat.shown.add(e); else flat.shown.delete(e);
      renderFlat();
    })));
    for (const d of D.derived) {
      menu.append(colBox(d.header, flat.shownDerived.has(d.name), (on) => {
        if (on) flat.shownDerived.add(d.name); else flat.shownDerived.delete(d.name);
        renderFlat();
      }));
    }
    const idle = colBox('functions that never ran', flat.showIdle, (on) => { flat.showIdle = on; renderFlat(); });
    vProfile.append(el('div', { class: 'toolbar' }, [
      search, flat.count,
      el('details', { class: 'cols' }, [el('summary', { text: 'Columns (' + NE + ' events)' }), menu]),
      idle,
      el('span', { class: 'muted', text: 'Click a header to sort, a name to see its callers, callees and annotated code.' }),
    ]));
    flat.table = el('table', { class: 'flat', id: 'flat' });
    flat.wrap = el('div', { class: 'tablewrap', id: 'flat-wrap' }, [flat.table]);
    flat.wrap.addEventListener('scroll', () => {
      if (!flat.pending) {
        flat.pending = true;
        requestAnimationFrame(() => flatRows(false));
      }
    });
    vProfile.append(flat.wrap);
    renderFlat();
  }

  // --------------------------------------------------------- function view
  const ann = { mode: null, all: false, limit: 4000 };

  function renderFn(id) {
    const f = FN[id];
    const e = state.ev;
    tabFn.textContent = f[NAME];
    tabFn.setAttribute('href', '#fn=' + id);
    tabFn.title = f[NAME];
    const where = '[0x' + f[START] + ', 0x' + f[END] + ')' + (f[FILE] ? '  ' + f[FILE] + (f[LINE] ? ':' + f[LINE] : '') : '');
    const findBtn = el('button', { text: 'Show in flame graph', onclick: () => { flame.query = f[NAME]; location.hash = '#flame'; } });
    const head = el('div', { class: 'fnhead' }, [el('h2', { id: 'fn-name', text: f[NAME] }), el('div', { class: 'where mono', text: where })]);

    // Costs of the function in every event.
    const stats = el('table', { class: 'grid stats', id: 'fn-stats' }, [el('thead', null, [el('tr', null, [
      el('th', { text: 'Event' }), el('th', { class: 'num', text: 'self' }), el('th', { class: 'num', text: '% of total' }),
      el('th', { class: 'num', text: 'inclusive' }), el('th', { class: 'num', text: '% of total' }),
      el('th', { class: 'num', text: 'self per call' }),
    ])])]);
    const sb = el('tbody');
    EV.forEach((name, k) => {
      if (f[SELF][k] === 0 && f[INCL][k] === 0 && k !== e) return;
      sb.append(el('tr', { class: k === e ? 'sel' : null }, [
        el('td', { text: name }), cellNum(f[SELF][k]), el('td', { class: 'pct', text: fmtPct(pct(f[SELF][k], TOT[k])) }),
        cellNum(f[INCL][k]), el('td', { class: 'pct', text: fmtPct(pct(f[INCL][k], TOT[k])) }),
        el('td', { class: 'num', text: f[CALLS] ? fmt2(f[SELF][k] / f[CALLS]) : '' }),
      ]));
    });
    for (const d of D.derived) {
      const v = derivedValue(d, f[SELF]);
      sb.append(el('tr', null, [el('td', { text: d.header }), el('td', { class: 'num', text: fmtDerived(d, v) }), el('td'), el('td'), el('td'), el('td')]));
    }
    stats.append(sb);

    vFn.replaceChildren(head, el('div', { class: 'toolbar' }, [
      el('span', null, ['calls ', el('b', { text: fmt(f[CALLS]) })]), findBtn,
    ]), stats, el('h2', { text: 'Call graph' }), renderCallGraph(id), renderAnnotation(id));
  }

  /// Arcs grouped by the other end: [fid or -1, calls, inclusive[], sites[]].
  function groupArcs(list, end) {
    const m = new Map();
    for (const i of list) {
      const a = D.arcs[i];
      const k = a[end];
      let g = m.get(k);
      if (!g) { g = [k, 0, new Array(NE).fill(0), []]; m.set(k, g); }
      g[1] += a[3];
      for (let e = 0; e < NE; e++) g[2][e] += a[5][e];
      if (a[0] >= 0) g[3].push('0x' + a[2] + (a[4] ? ' (tail)' : ''));
    }
    return [...m.values()].sort((a, b) => b[2][state.ev] - a[2][state.ev] || b[1] - a[1]);
  }

  function renderCallGraph(id) {
    const e = state.ev, f = FN[id];
    const table = (title, groups, who, tid) => {
      const t = el('table', { class: 'grid', id: tid }, [el('thead', null, [el('tr', null, [
        el('th', { text: who }), el('th', { class: 'num', text: 'calls' }),
        el('th', { class: 'num', text: 'inclusive ' + unit(e), title: 'cost in ' + f[NAME] + ' and its descendants along these calls' }),
        el('th', { class: 'num', text: '% of its inclusive', title: 'share of ' + f[NAME] + '\'s inclusive ' + EV[e] }),
        el('th', { text: 'call sites' }),
      ])])]);
      const body = el('tbody');
      for (const g of groups) {
        body.append(el('tr', null, [
          el('td', null, [g[0] >= 0 ? fnLink(g[0]) : el('span', { class: 'muted', text: '<spontaneous>' })]),
          cellNum(g[1]), cellNum(g[2][e]),
          el('td', { class: 'pct', text: fmtPct(pct(g[2][e], f[INCL][e])) }),
          el('td', { class: 'mono muted', text: g[3].slice(0, 6).join(' ') + (g[3].length > 6 ? ' \u2026' : '') }),
        ]));
      }
      if (!groups.length) body.append(el('tr', null, [el('td', { class: 'muted', colspan: '5', text: 'none' })]));
      t.append(body);
      return el('div', null, [el('h3', { text: title }), t]);
    };
    return el('div', { class: 'callgraph' }, [
      table('Callers (who called ' + f[NAME] + ')', groupArcs(inArcs[id], 0), 'Caller', 'callers'),
      table('Callees (what ' + f[NAME] + ' called)', groupArcs(outArcs[id], 1), 'Callee', 'callees'),
    ]);
  }

  function renderAnnotation(id) {
    const box = el('div', { id: 'annotation' }, [el('h2', { text: 'Annotated code' })]);
    const A = D.annotations[id];
    if (!A) {
      box.append(el('p', { class: 'note', text: 'No instruction of this function has a cost in this profile: nothing to annotate.' }));
      return box;
    }
    const f = FN[id];
    const hasSource = A.groups.some((g) => g[0] >= 0 && g[1] > 0);
    let mode = ann.mode || (hasSource ? 'mixed' : 'asm');
    if (!hasSource) mode = 'asm';
    // Event columns: the selected one, or every event the function has.
    const evs = ann.all ? EV.map((_, k) => k).filter((k) => f[SELF][k] !== 0 || k === state.ev) : [state.ev];
    const e = state.ev;
    const tot = TOT[e];
    const zero = new Array(NE).fill(0);
    const cost = (c) => (c === 0 ? zero : c);
    // Largest per-instruction and per-line cost, for the heat shading.
    const lineSums = new Map();
    let maxInst = 0, maxLine = 0;
    for (const g of A.groups) {
      const key = g[0] + ':' + g[1];
      let s = lineSums.get(key);
      if (!s) { s = new Array(NE).fill(0); lineSums.set(key, s); }
      for (const ins of g[3]) {
        const c = cost(ins[4]);
        if (c[e] > maxInst) maxInst = c[e];
        for (let k = 0; k < NE; k++) s[k] += c[k];
      }
    }
    for (const s of lineSums.values()) if (s[e] > maxLine) maxLine = s[e];
    const heat = (td, v, max) => {
      if (v > 0 && max > 0) td.style.background = 'rgba(230, 90, 20, ' + (0.06 + 0.6 * (v / max)).toFixed(3) + ')';
      return td;
    };
    const countCells = (c, max) => {
      const tds = evs.map((k) => {
        const td = el('td', { class: 'num', text: c[k] ? fmt(c[k]) : '' });
        return k === e ? heat(td, c[k], max) : td;
      });
      tds.push(el('td', { class: 'pct', text: c[e] ? pct(c[e], tot).toFixed(2) : '' }));
      return tds;
    };
    const sumOf = (insts) => {
      const s = new Array(NE).fill(0);
      for (const ins of insts) { const c = cost(ins[4]); for (let k = 0; k < NE; k++) s[k] += c[k]; }
      return s;
    };
    const srcText = (fi, line) => {
      const file = D.files[fi];
      const t = file && file.lines[line];
      return t === undefined ? null : t;
    };
    const srcRow = (fi, line, s, inlined, max) => {
      const t = srcText(fi, line);
      const code = el('td', { class: 'code' + (t === null ? ' missing' : ''), text: t === null ? '<source not found>' : t });
      if (inlined) code.append(el('span', { class: 'inl', text: '[inlined: ' + inlined + ']' }));
      return el('tr', { class: 'src' + (s[e] ? ' hot' : '') + (s.some((v) => v) ? '' : ' nocode'), data: { count: String(s[e]), line: String(line) } },
        [...countCells(s, max), el('td', { class: 'lno', text: String(line) }), el('td', { class: 'raw' }), code]);
    };
    const instRow = (ins) => {
      const c = cost(ins[4]);
      const code = el('td', { class: 'code' });
      const asm = ins[2];
      const lt = asm.lastIndexOf(' <');
      if (ins[3] >= 0 && lt > 0) {
        code.append(asm.slice(0, lt + 1), el('a', { href: '#fn=' + ins[3], text: asm.slice(lt + 1) }));
      } else code.textContent = asm;
      return el('tr', { class: 'asm' + (c[e] ? ' hot' : '') + (ins[4] === 0 ? ' cold' : ''), data: { count: String(c[e]), addr: ins[0] } },
        [...countCells(c, maxInst), el('td', { class: 'addr', text: ins[0] + ':' }), el('td', { class: 'raw', text: ins[1] }), code]);
    };
    const fileRow = (fi) => {
      const file = D.files[fi];
      const msg = file.path + (file.found ? '' : '  (source file not found; point --source-dir at the sources)');
      return el('tr', { class: 'file' }, [el('td', { colspan: String(evs.length + 3) }), el('td', { text: msg })]);
    };

    // Controls.
    const modeSel = el('select', { id: 'ann-mode' });
    for (const [v, label] of [['mixed', 'Source and disassembly'], ['source', 'Source only'], ['asm', 'Disassembly only']]) {
      if (v !== 'asm' && !hasSource) continue;
      modeSel.append(el('option', { value: v, text: label }));
    }
    modeSel.value = mode;
    modeSel.addEventListener('change', () => { ann.mode = modeSel.value; box.replaceWith(renderAnnotation(id)); });
    const allCb = el('input', { type: 'checkbox', id: 'ann-all' });
    allCb.checked = ann.all;
    allCb.addEventListener('change', () => { ann.all = allCb.checked; box.replaceWith(renderAnnotation(id)); });
    const hotBtn = el('button', { id: 'ann-hottest', text: 'Go to the hottest line', onclick: () => {
      let best = null, bestV = 0;
      for (const tr of box.querySelectorAll(mode === 'asm' ? 'tr.asm.hot' : 'tr.src.hot')) {
        const v = +tr.dataset.count;
        if (v > bestV) { bestV = v; best = tr; }
      }
      if (best) {
        best.scrollIntoView({ block: 'center' });
        for (const old of box.querySelectorAll('tr.mark')) old.classList.remove('mark');
        best.classList.add('mark');
      }
    } });
    const controls = el('div', { class: 'toolbar' }, [modeSel, el('label', null, [allCb, ' every event with a cost here']), hotBtn]);
    if (!hasSource) {
      controls.append(el('span', { class: 'muted', text: 'No line information for this function' +
        (D.meta.annotation_program ? '.' : ' (no program: give it with --program).') }));
    }
    box.append(controls);
    if (A.truncated) box.append(el('p', { class: 'note', text: 'This function is long: only its first instructions are shown.' }));

    const head = el('tr', null, [...evs.map((k) => el('th', { text: unit(k) })), el('th', { text: '%' }),
      el('th', { text: mode === 'source' ? 'line' : 'line/addr' }), el('th'), el('th', { class: 'code', text: 'code' })]);
    const body = el('tbody');
    const rows = [];
    if (mode === 'source') {
      const [fi, first, last] = A.src;
      rows.push(fileRow(fi));
      const lines = Object.keys(D.files[fi].lines).map(Number).filter((l) => l >= first && l <= last).sort((a, b) => a - b);
      let prev = 0;
      for (const l of lines) {
        if (prev && l > prev + 1) rows.push(el('tr', { class: 'gap' }, [el('td', { colspan: String(evs.length + 3) }), el('td', { text: '\u22EF' })]));
        rows.push(srcRow(fi, l, lineSums.get(fi + ':' + l) || zero, null, maxLine));
        prev = l;
      }
      if (!D.files[fi].found) rows.push(el('tr', { class: 'gap' }, [el('td', { colspan: String(evs.length + 3) }), el('td', { text: 'source file not found' })]));
    } else {
      let curFile = -1;
      for (const g of A.groups) {
        if (mode === 'mixed' && g[0] >= 0 && g[1] > 0) {
          if (g[0] !== curFile) { rows.push(fileRow(g[0])); curFile = g[0]; }
          rows.push(srcRow(g[0], g[1], sumOf(g[3]), g[2], maxLine));
        }
        for (const ins of g[3]) rows.push(instRow(ins));
      }
    }
    const shown = rows.length > ann.limit ? rows.slice(0, ann.limit) : rows;
    body.append(...shown);
    box.append(el('table', { class: 'ann', id: 'ann-table' }, [el('thead', null, [head]), body]));
    if (shown.length < rows.length) {
      box.append(el('button', { text: 'Show all ' + fmt(rows.length) + ' rows', onclick: () => { ann.limit = Infinity; box.replaceWith(renderAnnotation(id)); ann.limit = 4000; } }));
    }
    return box;
  }

  // ------------------------------------------------------------ flame graph
  const RH = 17; // row height in CSS pixels
  const flame = {
    built: false, n: 0, children: null, roots: null, depth: null, maxDepth: 0,
    incl: null, total: 0, ev: -1, zoom: -1, query: '', icicle: false,
    canvas: null, ctx: null, wrap: null, tip: null, info: null, detail: null, search: null,
    hits: [], levels: 0, charW: 7, matched: null,
  };
  const C = D.contexts; // [parent, function, calls, self[]]

  function flameColor(name) {
    // FlameGraph's "hot" palette, chosen by a hash of the name.
    let h = 2166136261;
    for (let i = 0; i < name.length; i++) { h ^= name.charCodeAt(i); h = Math.imul(h, 16777619); }
    const a = ((h >>> 0) % 1000) / 1000, b = ((h >>> 10) % 1000) / 1000;
    return 'rgb(' + (205 + Math.round(50 * b)) + ',' + Math.round(230 * a) + ',' + Math.round(55 * (1 - a)) + ')';
  }

  function flameBuild() {
    const n = C.length;
    flame.n = n;
    flame.children = Array.from({ length: n }, () => []);
    flame.roots = [];
    flame.depth = new Uint32Array(n);
    for (let i = 0; i < n; i++) {
      const p = C[i][0];
      if (p >= 0) { flame.children[p].push(i); flame.depth[i] = flame.depth[p] + 1; }
      else { flame.roots.push(i); flame.depth[i] = 1; }
      if (flame.depth[i] > flame.maxDepth) flame.maxDepth = flame.depth[i];
    }
    const byName = (a, b) => { const x = FN[C[a][1]][NAME], y = FN[C[b][1]][NAME]; return x < y ? -1 : x > y ? 1 : a - b; };
    for (const ch of flame.children) if (ch.length > 1) ch.sort(byName);
    flame.roots.sort(byName);
    flame.built = true;
  }

  function flameValues() {
    const n = flame.n, e = state.ev;
    const incl = new Float64Array(n);
    for (let i = n - 1; i >= 0; i--) {
      incl[i] += C[i][3][e];
      const p = C[i][0];
      if (p >= 0) incl[p] += incl[i];
    }
    let total = 0;
    for (const r of flame.roots) total += incl[r];
    flame.incl = incl;
    flame.total = total;
    flame.ev = e;
  }

  function flameMatch() {
    const q = flame.query.toLowerCase();
    flame.matched = null;
    if (!q) { flame.info.textContent = ''; return; }
    const n = flame.n;
    const m = new Uint8Array(n), under = new Uint8Array(n);
    let sum = 0;
    for (let i = 0; i < n; i++) {
      const p = C[i][0];
      if (p >= 0) under[i] = under[p] | m[p];
      if (FN[C[i][1]][NAME].toLowerCase().indexOf(q) >= 0) {
        m[i] = 1;
        if (!under[i]) sum += flame.incl[i];
      }
    }
    flame.matched = m;
    flame.info.textContent = 'Matched: ' + fmt(sum) + ' ' + unit(state.ev) + ' (' + fmtPct(pct(sum, flame.total)) + ' of total)';
  }

  function flameValueOf(node) { return node < 0 ? flame.total : flame.incl[node]; }
  function flameName(node) { return node < 0 ? 'all' : FN[C[node][1]][NAME]; }

  function flameDraw() {
    if (!flame.built) flameBuild();
    if (flame.ev !== state.ev) flameValues();
    flameMatch();
    const dpr = window.devicePixelRatio || 1;
    const width = Math.max(300, flame.wrap.clientWidth - 2);
    const maxLevels = Math.floor(30000 / (RH * dpr));
    const levels = Math.min(flame.maxDepth + 1, maxLevels);
    flame.levels = levels;
    const height = levels * RH;
    const cv = flame.canvas;
    cv.width = Math.round(width * dpr);
    cv.height = Math.round(height * dpr);
    cv.style.width = width + 'px';
    cv.style.height = height + 'px';
    const g = flame.ctx;
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, width, height);
    g.font = '11px ' + getComputedStyle(document.body).getPropertyValue('--mono');
    g.textBaseline = 'middle';
    flame.charW = g.measureText('mmmmmmmmmm').width / 10 || 7;
    const hits = Array.from({ length: levels }, () => []);
    flame.hits = hits;
    let drawn = 0;
    const yOf = (d) => (flame.icicle ? d * RH : (levels - 1 - d) * RH);
    const box = (node, d, x, w, dim) => {
      if (d >= levels) return;
      const name = flameName(node);
      const matched = flame.matched && node >= 0 && flame.matched[node];
      g.fillStyle = matched ? 'rgb(230,0,230)' : node < 0 ? 'rgb(200,200,200)' : flameColor(name);
      if (dim) g.globalAlpha = 0.55;
      const y = yOf(d);
      g.fillRect(x, y, Math.max(w - 0.5, 0.5), RH - 1);
      g.globalAlpha = 1;
      const max = Math.floor((w - 6) / flame.charW);
      if (max >= 3) {
        const label = name.length <= max ? name : name.slice(0, Math.max(0, max - 2)) + '..';
        g.fillStyle = '#000';
        g.fillText(label, x + 3, y + RH / 2);
      }
      hits[d].push([x, w, node]);
      drawn++;
    };
    // The zoomed node's ancestors span the width, dimmed.
    const z = flame.zoom;
    const path = [];
    for (let a = z; a >= 0; a = C[a][0]) path.push(a);
    path.push(-1);
    path.reverse();
    for (let k = 0; k < path.length - 1; k++) box(path[k], k, 0, width, true);
    const zd = z < 0 ? 0 : flame.depth[z];
    const zv = flameValueOf(z);
    box(z, zd, 0, width, false);
    if (zv > 0) {
      const scale = width / zv;
      const stack = [[z, 0, zd]];
      while (stack.length) {
        const [node, x0, d] = stack.pop();
        if (d + 1 >= levels) continue;
        let x = x0;
        const kids = node < 0 ? flame.roots : flame.children[node];
        for (const c of kids) {
          const w = flame.incl[c] * scale;
          if (w >= 0.4) {
            box(c, d + 1, x, w, false);
            stack.push([c, x, d + 1]);
          }
          x += w;
        }
      }
    }
    cv.dataset.nodes = String(drawn);
    if (flame.maxDepth + 1 > levels) {
      flame.detail.textContent = 'Only the first ' + levels + ' of ' + (flame.maxDepth + 1) + ' levels are drawn; click a deep frame to zoom into it.';
    }
  }

  function flameHit(ev) {
    const r = flame.canvas.getBoundingClientRect();
    const x = ev.clientX - r.left, y = ev.clientY - r.top;
    const row = Math.floor(y / RH);
    const d = flame.icicle ? row : flame.levels - 1 - row;
    const list = flame.hits[d];
    if (!list) return null;
    for (const h of list) if (x >= h[0] && x < h[0] + Math.max(h[1], 1)) return h[2];
    return null;
  }

  function flameTip(ev) {
    const node = flameHit(ev);
    const tip = flame.tip;
    if (node === null) { tip.style.display = 'none'; flame.canvas.style.cursor = 'default'; return; }
    flame.canvas.style.cursor = 'pointer';
    const e = state.ev, v = flameValueOf(node), zv = flameValueOf(flame.zoom);
    const lines = [el('div', { class: 'n', text: flameName(node) }),
      el('div', { text: fmt(v) + ' ' + unit(e) + ' inclusive, ' + fmtPct(pct(v, flame.total)) + ' of total' +
        (flame.zoom >= 0 ? ', ' + fmtPct(pct(v, zv)) + ' of zoomed' : '') })];
    if (node >= 0) {
      lines.push(el('div', { text: 'self here: ' + fmt(C[node][3][e]) + ' ' + unit(e) + ', entered ' + fmt(C[node][2]) + ' times in this context' }));
      lines.push(el('div', { class: 'muted', text: 'click: zoom, double-click: open the function' }));
    }
    tip.replaceChildren(...lines);
    tip.style.display = 'block';
    const tw = tip.offsetWidth, th = tip.offsetHeight;
    let left = ev.clientX + 14, top = ev.clientY + 14;
    if (left + tw > window.innerWidth - 4) left = Math.max(4, ev.clientX - tw - 14);
    if (top + th > window.innerHeight - 4) top = Math.max(4, ev.clientY - th - 14);
    tip.style.left = left + 'px';
    tip.style.top = top + 'px';
  }

  function flameDetail(node) {
    const d = flame.detail;
    if (node < 0) { d.replaceChildren('Click a frame to zoom into it; double-click to open its function.'); return; }
    const fid = C[node][1];
    d.replaceChildren('Zoomed to ', fnLink(fid), ' (' + fmt(flame.incl[node]) + ' ' + unit(state.ev) + ', ' +
      fmtPct(pct(flame.incl[node], flame.total)) + ' of total). ', el('a', { href: '#fn=' + fid, text: 'Open its call graph and annotation' }));
  }

  function buildFlameView() {
    if (!C.length) {
      vFlame.append(el('h2', { text: 'Flame graph' }), el('p', { class: 'note', id: 'flame-none',
        text: 'This profile has no calling-context tree (it was recorded by a version of fwprof that kept none), so there is no flame graph; the call graph of each function is in its Function view.' }));
      return;
    }
    flame.search = el('input', { type: 'search', id: 'flame-search', placeholder: 'Highlight functions matching', autocomplete: 'off' });
    flame.search.addEventListener('input', debounce(() => { flame.query = flame.search.value; flameDraw(); }, 150));
    const reset = el('button', { id: 'flame-reset', text: 'Reset zoom', onclick: () => { flame.zoom = -1; flameDetail(-1); flameDraw(); } });
    const icicle = el('input', { type: 'checkbox', id: 'flame-icicle' });
    icicle.addEventListener('change', () => { flame.icicle = icicle.checked; flameDraw(); });
    flame.info = el('span', { class: 'muted', id: 'flame-info' });
    flame.canvas = el('canvas', { id: 'flame' });
    flame.ctx = flame.canvas.getContext('2d');
    flame.wrap = el('div', { class: 'flamewrap' }, [flame.canvas]);
    flame.tip = el('div', { class: 'tooltip', id: 'flame-tip' });
    flame.detail = el('p', { class: 'muted', id: 'flame-detail' });
    vFlame.append(
      el('h2', { text: 'Flame graph' }),
      el('div', { class: 'toolbar' }, [flame.search, reset, el('label', null, [icicle, ' root on top (icicle)']), flame.info]),
      el('p', { class: 'muted', text: 'Each box is a function in one calling context; its width is its inclusive cost in the selected event (its own cost plus everything it called from there). Children sit above their caller, sorted by name.' }),
      flame.wrap, flame.detail, flame.tip);
    flameDetail(-1);
    let clickTimer = 0;
    flame.canvas.addEventListener('mousemove', flameTip);
    flame.canvas.addEventListener('mouseleave', () => { flame.tip.style.display = 'none'; });
    flame.canvas.addEventListener('click', (ev) => {
      const node = flameHit(ev);
      if (node === null) return;
      clearTimeout(clickTimer);
      clickTimer = setTimeout(() => { flame.zoom = node; flameDetail(node); flameDraw(); flameTip(ev); }, 220);
    });
    flame.canvas.addEventListener('dblclick', (ev) => {
      clearTimeout(clickTimer);
      const node = flameHit(ev);
      if (node !== null && node >= 0) location.hash = '#fn=' + C[node][1];
    });
    window.addEventListener('resize', debounce(() => { if (state.view === 'flame') flameDraw(); }, 150));
  }

  // ----------------------------------------------------------------- router
  function show(view, id) {
    state.view = view;
    for (const [v, sec, tab] of [['profile', vProfile, tabProfile], ['flame', vFlame, tabFlame], ['fn', vFn, tabFn]]) {
      sec.classList.toggle('active', v === view);
      tab.classList.toggle('active', v === view);
    }
    if (view === 'fn') {
      const moved = state.fn !== id;
      state.fn = id;
      renderFn(id);
      if (moved) window.scrollTo(0, 0);
    } else if (view === 'flame' && C.length) {
      if (flame.search && flame.search.value !== flame.query) flame.search.value = flame.query;
      flameDraw();
    } else if (view === 'profile') {
      flatRows(true);
    }
  }
  function route() {
    const h = location.hash;
    const m = /^#fn=(\d+)$/.exec(h);
    if (m && +m[1] < NF) show('fn', +m[1]);
    else if (h === '#flame') show('flame');
    else show('profile');
  }
  evSelect.addEventListener('change', () => {
    state.ev = +evSelect.value;
    flat.shown.add(state.ev);
    if (/^(self|incl|selfpct|inclpct):/.test(flat.sort.key)) flat.sort = { key: 'self:' + state.ev, dir: -1 };
    for (const td of document.querySelectorAll('#totals td')) td.classList.toggle('sel', +td.dataset.ev === state.ev);
    renderFlat();
    route();
  });
  window.addEventListener('hashchange', route);

  buildProfileView();
  buildFlameView();
  if (NF === 0) tabFn.style.display = 'none';
  else {
    const hottest = flat.ids.length ? flat.ids[0] : 0;
    tabFn.textContent = FN[hottest][NAME];
    tabFn.setAttribute('href', '#fn=' + hottest);
  }
  route();
  document.body.dataset.ready = '1';
})();
