// The trade-off explorer page: every number is looked up in the grid the exact engine precomputed (DATA, embedded
// as JSON by verify/explore/page.py); moving a control only redraws. Plain JavaScript, SVG drawn as markup.
"use strict";

const DATA = JSON.parse(document.getElementById("explorer-data").textContent);
const S = { o: 0, s: 0, k: 0, b: 0, i: 0, j: 0 };
const $ = (id) => document.getElementById(id);
const SUP = { "-": "\u207b", 0: "\u2070", 1: "\u00b9", 2: "\u00b2", 3: "\u00b3", 4: "\u2074", 5: "\u2075",
  6: "\u2076", 7: "\u2077", 8: "\u2078", 9: "\u2079" };

function fmt(x, d = 3) {
  if (x === null || x === undefined || !isFinite(x)) return "n/a";
  if (x === 0) return "0";
  const a = Math.abs(x);
  if (a >= 1e-3 && a < 1e5) return Number(x.toPrecision(d)).toString();
  const [mant, ex] = x.toExponential(d - 1).split("e");
  return `${parseFloat(mant)}e${ex.replace("+", "")}`;
}
function pow10(e) { return "10" + String(e).split("").map((c) => SUP[c]).join(""); }
function esc(t) { return String(t).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;"); }
function cell() { return DATA.cells[S.o][S.s][S.k]; }
function finite(v) { return v !== null && v !== undefined && isFinite(v) && v > 0; }

// ------------------------------------------------------------------ log-log plotting as SVG markup
function logRange(values) {
  const v = values.filter(finite);
  if (!v.length) return null;
  let lo = Math.log10(Math.min(...v)), hi = Math.log10(Math.max(...v));
  if (hi - lo < 0.5) { lo -= 0.25; hi += 0.25; }
  const pad = 0.04 * (hi - lo);
  return [lo - pad, hi + pad];
}
function ticks(r) {
  // decades (every other one beyond 9 decades); with fewer than 2 decades in view also 2 and 5 times them
  const out = [];
  const step = r[1] - r[0] > 9 ? 2 : 1;
  for (let e = Math.ceil(r[0]); e <= Math.floor(r[1]); e += step) out.push({ v: e, text: pow10(e) });
  if (r[1] - r[0] < 2) {
    for (let e = Math.floor(r[0]); e <= Math.ceil(r[1]); e++) {
      for (const f of [2, 5]) {
        const v = e + Math.log10(f);
        if (v > r[0] && v < r[1]) out.push({ v, text: `${f}\u00d7${pow10(e)}`, minor: true });
      }
    }
  }
  return out;
}
function frame(w, h, xr, yr, xlab, ylab) {
  const m = { l: 62, r: 12, t: 12, b: 42 };
  const X = (v) => m.l + (Math.log10(v) - xr[0]) / (xr[1] - xr[0]) * (w - m.l - m.r);
  const Y = (v) => h - m.b - (Math.log10(v) - yr[0]) / (yr[1] - yr[0]) * (h - m.t - m.b);
  let s = `<rect x="${m.l}" y="${m.t}" width="${w - m.l - m.r}" height="${h - m.t - m.b}" class="plotbg"/>`;
  for (const t of ticks(xr)) {
    const x = X(10 ** t.v);
    s += `<line x1="${x}" x2="${x}" y1="${m.t}" y2="${h - m.b}" class="grid"/>`;
    s += `<text x="${x}" y="${h - m.b + 16}" class="tick" text-anchor="middle">${t.text}</text>`;
  }
  for (const t of ticks(yr)) {
    const y = Y(10 ** t.v);
    s += `<line x1="${m.l}" x2="${w - m.r}" y1="${y}" y2="${y}" class="grid"/>`;
    s += `<text x="${m.l - 6}" y="${y + 4}" class="tick" text-anchor="end">${t.text}</text>`;
  }
  s += `<text x="${(m.l + w - m.r) / 2}" y="${h - 6}" class="label" text-anchor="middle">${esc(xlab)}</text>`;
  s += `<text transform="translate(14,${(m.t + h - m.b) / 2}) rotate(-90)" class="label" text-anchor="middle">` +
       `${esc(ylab)}</text>`;
  return { s, X, Y, m, w, h };
}
function polyline(F, xs, ys, cls) {
  let pts = "", out = "";
  for (let q = 0; q < xs.length; q++) {
    if (finite(xs[q]) && finite(ys[q])) pts += `${F.X(xs[q]).toFixed(1)},${F.Y(ys[q]).toFixed(1)} `;
    else if (pts) { out += `<polyline points="${pts}" class="${cls}"/>`; pts = ""; }
  }
  return out + (pts ? `<polyline points="${pts}" class="${cls}"/>` : "");
}
function star(x, y, cls, title) {
  let p = "";
  for (let q = 0; q < 10; q++) {
    const r = q % 2 ? 4 : 10, a = Math.PI / 2 + q * Math.PI / 5;
    p += `${(x + r * Math.cos(a)).toFixed(1)},${(y - r * Math.sin(a)).toFixed(1)} `;
  }
  return `<polygon points="${p}" class="${cls}"><title>${esc(title)}</title></polygon>`;
}
function legend(items) {
  return `<div class="legendrow">` + items.map(([cls, text]) =>
    `<span><svg width="26" height="10"><line x1="0" x2="26" y1="5" y2="5" class="${cls}"/></svg> ${esc(text)}</span>`
  ).join("") + `</div>`;
}

// ------------------------------------------------------------------ the optimum at this budget (grid argmin)
function gridOptimum(c, b) {
  let best = null;
  c.mse[b].forEach((row, i) => row.forEach((v, j) => {
    if (finite(v) && (best === null || v < best.mse)) best = { i, j, mse: v };
  }));
  return best;
}
function bestOverH(c, b, i) {
  let best = null;
  c.mse[b][i].forEach((v, j) => { if (finite(v) && (best === null || v < best.mse)) best = { j, mse: v }; });
  return best;
}

// ------------------------------------------------------------------ panels
function drawCurves(c) {
  const b = S.b, i = S.i, hs = c.h[i];
  const bias = c.bias2[b][i], vr = c.var[b][i], mse = c.mse[b][i];
  const vol = c.vollmer ? c.vollmer.mse[b][i] : null;
  const yv = mse.concat(vr);
  const yr0 = logRange(yv);
  if (!yr0) return `<p class="note">No step of the time average fits in this budget at n = ${c.n[i]}.</p>`;
  const floor = 10 ** (yr0[0] - 3);
  const yr = logRange(yv.concat(bias.map((v) => (finite(v) ? Math.max(v, floor) : v))));
  const xr = logRange(hs.concat([c.edge[i]]));
  const F = frame(640, 330, xr, yr, "step size h (log scale)", "exact value (log scale)");
  let s = F.s;
  const xe = F.X(c.edge[i]);
  s += `<rect x="${xe}" y="${F.m.t}" width="${F.w - F.m.r - xe}" height="${F.h - F.m.t - F.m.b}" class="unstable"/>`;
  s += `<line x1="${xe}" x2="${xe}" y1="${F.m.t}" y2="${F.h - F.m.b}" class="edge"/>`;
  s += `<text x="${xe - 4}" y="${F.m.t + 12}" class="edgelab" text-anchor="end">stability edge</text>`;
  if (vol) s += polyline(F, hs, vol.map((v) => (finite(v) && v >= 10 ** yr[0] ? v : null)), "vollmer");
  s += polyline(F, hs, bias.map((v) => (finite(v) ? Math.max(v, floor) : v)), "bias");
  s += polyline(F, hs, vr, "var") + polyline(F, hs, mse, "mse");
  const bo = bestOverH(c, b, i);
  if (bo) s += star(F.X(hs[bo.j]), F.Y(bo.mse), "staropt", `smallest MSE at n = ${c.n[i]}`);
  if (vol && finite(c.vollmer.hstar[b][i])) {
    const hx = c.vollmer.hstar[b][i];
    if (Math.log10(hx) > xr[0] && Math.log10(hx) < xr[1]) {
      const x = F.X(hx);
      s += `<line x1="${x}" x2="${x}" y1="${F.m.t}" y2="${F.h - F.m.b}" class="vollmerh"/>`;
      s += `<text x="${x + 3}" y="${F.m.t + 12}" class="vollmerlab">Remark 8 h*</text>`;
    }
  }
  const x = F.X(hs[S.j]);
  s += `<line x1="${x}" x2="${x}" y1="${F.m.t}" y2="${F.h - F.m.b}" class="cursor"/>`;
  for (const [arr, cls] of [[bias, "dotbias"], [vr, "dotvar"], [mse, "dotmse"]]) {
    if (finite(arr[S.j])) s += `<circle cx="${x}" cy="${F.Y(Math.max(arr[S.j], floor))}" r="4" class="${cls}"/>`;
  }
  const items = [["mse", "MSE"], ["var", "variance"], ["bias", "bias\u00b2 (floored at the axis)"]];
  if (vol) items.push(["vollmer", "Vollmer et al. Thm 5.2 asymptotic MSE"]);
  return `<svg width="640" height="330" role="img" aria-label="bias, variance and MSE against h">${s}</svg>` +
         legend(items);
}

function drawN(c) {
  const b = S.b;
  const best = c.n.map((_, i) => { const o = bestOverH(c, b, i); return o ? o.mse : null; });
  const yr = logRange(best);
  if (!yr) return `<p class="note">No step fits in this budget at any n.</p>`;
  const xr = logRange(c.n.concat([c.n[0] / 1.5, c.n[c.n.length - 1] * 1.5]));
  const F = frame(640, 260, xr, yr, "minibatch size n (log scale)", "MSE at the best h for this n");
  let s = F.s + polyline(F, c.n, best, "mse");
  c.n.forEach((n, i) => { if (finite(best[i])) s += `<circle cx="${F.X(n)}" cy="${F.Y(best[i])}" r="3" class="dotmse"/>`; });
  const g = gridOptimum(c, b);
  if (g) s += star(F.X(c.n[g.i]), F.Y(g.mse), "staropt", "optimum at this budget");
  const xn = F.X(c.n[S.i]);
  s += `<line x1="${xn}" x2="${xn}" y1="${F.m.t}" y2="${F.h - F.m.b}" class="cursor"/>`;
  const chen = DATA.chen[S.k], skey = DATA.samplers[S.s].key;
  if (chen && chen.samplers.includes(skey)) {
    const p = chen.predicted[b];
    const txt = p === null ? "Chen et al. Cor. 4: n = 1 or N (between T1 and T2)" : `Chen et al. Cor. 4 predicts n = ${p}`;
    if (p !== null) {
      const x = F.X(p);
      s += `<line x1="${x}" x2="${x}" y1="${F.m.t}" y2="${F.h - F.m.b}" class="chen"/>`;
    }
    s += `<text x="${F.m.l + 8}" y="${F.m.t + 14}" class="chenlab">${esc(txt)} (unit constants)</text>`;
  }
  return `<svg width="640" height="260" role="img" aria-label="best MSE against n">${s}</svg>`;
}

function drawHeat(c) {
  const b = S.b, rows = c.n.length, cols = DATA.fractions.length;
  const vals = c.mse[b].flat().filter(finite).map(Math.log10);
  if (!vals.length) return "";
  const lo = Math.min(...vals), hi = Math.max(...vals);
  const cw = 52, ch = 22, left = 70, top = 8, W = left + cols * cw + 10, H = top + rows * ch + 40;
  let s = "";
  c.mse[b].forEach((row, i) => row.forEach((v, j) => {
    const t = finite(v) ? (Math.log10(v) - lo) / Math.max(hi - lo, 1e-12) : null;
    const col = t === null ? "#ddd" : `hsl(${(250 - 200 * t).toFixed(0)},70%,${(28 + 40 * t).toFixed(0)}%)`;
    const y = top + (rows - 1 - i) * ch;
    s += `<rect x="${left + j * cw}" y="${y}" width="${cw - 1}" height="${ch - 1}" fill="${col}">` +
         `<title>n = ${c.n[i]}, h = ${fmt(c.h[i][j])}: MSE ${fmt(v)}</title></rect>`;
  }));
  c.n.forEach((n, i) => { s += `<text x="${left - 6}" y="${top + (rows - 1 - i) * ch + 15}" class="tick" text-anchor="end">${n}</text>`; });
  DATA.fractions.forEach((f, j) => {
    s += `<text x="${left + j * cw + cw / 2}" y="${top + rows * ch + 14}" class="tick" text-anchor="middle">${fmt(f, 2)}</text>`;
  });
  s += `<text x="${left + cols * cw / 2}" y="${H - 6}" class="label" text-anchor="middle">h / stability edge of that n</text>`;
  s += `<rect x="${left + S.j * cw}" y="${top + (rows - 1 - S.i) * ch}" width="${cw - 1}" height="${ch - 1}" class="current"/>`;
  const g = gridOptimum(c, b);
  if (g) s += star(left + g.j * cw + cw / 2, top + (rows - 1 - g.i) * ch + ch / 2, "staropt", "optimum");
  s += `<text x="4" y="${top + rows * ch / 2}" class="label">n</text>`;
  return `<svg width="${W}" height="${H}" role="img" aria-label="MSE heat map">${s}</svg>` +
         `<p class="note">log10 MSE from ${fmt(lo, 3)} (dark) to ${fmt(hi, 3)} (light); grey: no value (no step fits the budget, or the point is left out: see the note).</p>`;
}

function bestTable() {
  let rows = "";
  DATA.budgets.forEach((T, b) => {
    let r = `<td>${fmt(T)}</td>`;
    DATA.samplers.forEach((_, s) => {
      const c = DATA.cells[S.o][s][S.k];
      if (c.error) { r += `<td class="na">n/a</td>`; return; }
      const g = gridOptimum(c, b);
      r += g ? `<td>n = ${c.n[g.i]}, h = ${fmt(c.h[g.i][g.j])}<br><span class="small">MSE ${fmt(g.mse)}</span></td>`
             : `<td class="na">no step fits</td>`;
    });
    rows += `<tr${b === S.b ? ' class="sel"' : ""}>${r}</tr>`;
  });
  const head = DATA.samplers.map((x) => `<th>${esc(x.label)}</th>`).join("");
  return `<table class="best"><thead><tr><th>budget (gradient evaluations)</th>${head}</tr></thead><tbody>${rows}</tbody></table>`;
}

// ------------------------------------------------------------------ controls and readouts
function nearest(list, v) {
  let q = 0;
  list.forEach((x, t) => { if (Math.abs(Math.log(x / v)) < Math.abs(Math.log(list[q] / v))) q = t; });
  return q;
}
function syncControls(c) {
  $("n").max = c.error ? 0 : c.n.length - 1;
  $("n").value = S.i;
  $("h").value = S.j;
  $("N").value = S.k;
  $("budget").value = S.b;
}
function showNote(c) {  // what this cell leaves out (time limit, points found unstable): the cell's note
  $("cell-note").textContent = c.note ? `Note: ${c.note}.` : "";
  $("cell-note").hidden = !c.note;
}
function render() {
  const c = cell();
  showNote(c);
  const N = DATA.N[S.k], T = DATA.budgets[S.b];
  $("N-out").textContent = N;
  $("budget-out").textContent = `${fmt(T)} gradient evaluations (${fmt(T / N)} data passes)`;
  if (c.error) {
    for (const id of ["curves", "nplot", "heat"]) $(id).innerHTML = "";
    $("readout").innerHTML = `<p class="error">${esc(c.error)}</p>`;
    $("optimum").textContent = "n/a";
    $("explanation").textContent = "";
    $("n-out").textContent = $("h-out").textContent = "n/a";
    $("vollmer-note").textContent = "";
    $("table").innerHTML = bestTable();
    return;
  }
  S.i = Math.min(S.i, c.n.length - 1);
  syncControls(c);
  const i = S.i, j = S.j, b = S.b, h = c.h[i][j];
  $("n-out").textContent = `${c.n[i]}` + (c.settings[i] ? ` (${c.settings[i]})` : "");
  $("h-out").textContent = `${fmt(h, 4)} = ${fmt(DATA.fractions[j], 3)} \u00d7 the stability edge ${fmt(c.edge[i], 4)}` +
    (c.h_langevin ? ` (SGHMC's eta; matched Langevin step 2 eta/alpha = ${fmt(c.h_langevin[i][j], 4)})` : "");
  const L = c.L[b][i];
  $("readout").innerHTML = L < 0 ? `<p>This budget buys no step at n = ${c.n[i]} (cost ${fmt(c.cost[i])} per step).</p>` :
    `<table class="kv"><tr><td>steps L (burn-in)</td><td>${L} (${c.burn[b][i]})</td></tr>` +
    `<tr><td>gradient evaluations per step</td><td>${fmt(c.cost[i])}</td></tr>` +
    `<tr><td>bias\u00b2</td><td>${fmt(c.bias2[b][i][j])}</td></tr>` +
    `<tr><td>variance</td><td>${fmt(c.var[b][i][j])}</td></tr>` +
    `<tr><td>MSE</td><td><b>${fmt(c.mse[b][i][j])}</b></td></tr>` +
    `<tr><td>posterior value estimated</td><td>${fmt(c.target, 6)}</td></tr></table>`;
  const g = gridOptimum(c, b), opt = c.opt[b];
  $("optimum").textContent = g ? `n = ${c.n[g.i]}, h = ${fmt(c.h[g.i][g.j], 4)}, MSE = ${fmt(g.mse, 4)}` : "no step fits";
  $("explanation").textContent = opt ? opt.explanation.replace(/\^2/g, "\u00b2") : "";
  $("curves").innerHTML = drawCurves(c);
  $("nplot").innerHTML = drawN(c);
  $("heat").innerHTML = drawHeat(c);
  $("table").innerHTML = bestTable();
  const vol = c.vollmer;
  $("vollmer-note").textContent = vol ? `Dashed grey: ${vol.source}, c1 = ${fmt(vol.c1[i])}, C_v = ${fmt(vol.cv[i])} ` +
    "(small h, large L; the start-up bias from theta_0 is not in it)." : "";
}
function setup() {
  const add = (sel, items) => items.forEach((t, q) => { const o = document.createElement("option"); o.value = q; o.textContent = t; sel.appendChild(o); });
  add($("objective"), DATA.objectives.map((o) => o.label));
  add($("sampler"), DATA.samplers.map((s) => s.label));
  $("N").max = DATA.N.length - 1;
  $("budget").max = DATA.budgets.length - 1;
  $("h").max = DATA.fractions.length - 1;
  S.k = Math.min(DATA.N.length - 1, Math.max(0, DATA.N.indexOf(1000)));
  S.b = Math.min(2, DATA.budgets.length - 1);
  S.j = Math.floor(DATA.fractions.length / 2);
  const c = cell();
  S.i = c.error ? 0 : nearest(c.n, 10);
  const keep = (f) => () => {
    const before = cell(), n0 = before.error ? 10 : before.n[S.i];
    f();
    const after = cell();
    S.i = after.error ? 0 : nearest(after.n, n0);
    render();
  };
  $("objective").addEventListener("change", keep(() => { S.o = +$("objective").value; }));
  $("sampler").addEventListener("change", keep(() => { S.s = +$("sampler").value; }));
  $("N").addEventListener("input", keep(() => { S.k = +$("N").value; }));
  $("budget").addEventListener("input", () => { S.b = +$("budget").value; render(); });
  $("n").addEventListener("input", () => { S.i = +$("n").value; render(); });
  $("h").addEventListener("input", () => { S.j = +$("h").value; render(); });
  $("to-optimum").addEventListener("click", () => {
    const g = gridOptimum(cell(), S.b);
    if (g) { S.i = g.i; S.j = g.j; render(); }
  });
  render();
}
setup();
