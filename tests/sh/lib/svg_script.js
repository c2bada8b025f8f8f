// tests/sh/lib/svg_script.js SVG NAME REGEX - runs the inline script of
// a flame graph of pmehisto -T svg in node, on a small stand-in for the
// browser's DOM made of the file's frames, and checks what it does:
//   - init() and zoom(null) leave each frame where the file drew it;
//   - a click on the first frame named NAME zooms on it: it and the
//     frames above it fill the width in proportion to their samples, the
//     frames below it (its callers) span the width faded, the others are
//     hidden, and Reset Zoom is shown; a click on the root resets;
//   - mark(REGEX) (Search) colours the frames whose names match and says
//     the share of the samples under them; mark('') undoes it.
// Prints "zoom NAME: N shown, N faded, N hidden" and "search REGEX:
// MATCHED TEXT"; exits 1 with a message on the first check that fails.
const fs = require('fs');
const [file, zname, regex] = process.argv.slice(2);
const svg = fs.readFileSync(file, 'utf8');
const fail = (m) => { console.error('svg_script.js: ' + m); process.exit(1); };

function attrs(tag) {
  const a = {};
  for (const m of tag.matchAll(/([\w-]+)="([^"]*)"/g)) a[m[1]] = m[2];
  return a;
}
const unxml = (s) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"').replace(/&amp;/g, '&');
function element(a, text) {
  return {
    a: a, style: { display: '' }, textContent: text, children: {},
    getAttribute(k) { return k in this.a ? this.a[k] : null; },
    setAttribute(k, v) { this.a[k] = String(v); },
    querySelector(s) { return this.children[s]; },
  };
}

const root = attrs(svg.match(/<svg [^>]*>/)[0]);
const byId = {};
for (const m of svg.matchAll(/<text id="(\w+)"([^>]*)>([^<]*)<\/text>/g)) {
  byId[m[1]] = element(attrs(m[2]), m[3]);
  byId[m[1]].style.display = /display:none/.test(m[2]) ? 'none' : '';
}
const frames = [];
for (const m of svg.matchAll(/<g class="f"([^>]*)><title>([^<]*)<\/title>(<rect [^>]*>)<text([^>]*)>([^<]*)<\/text><\/g>/g)) {
  const g = element(Object.assign(attrs(m[1]), { class: 'f' }), '');
  g.children.title = element({}, unxml(m[2]));
  g.children.rect = element(attrs(m[3]), '');
  g.children.text = element(attrs(m[4]), unxml(m[5]));
  frames.push(g);
}
if (frames.length === 0) fail(file + ': no frames');
const document = {
  documentElement: element(root, ''),
  querySelectorAll(s) { return s === 'g.f' ? frames : []; },
  getElementById(id) { return byId[id]; },
  addEventListener() {},
};
const script = svg.match(/<!\[CDATA\[([\s\S]*?)\]\]>/)[1];
const api = new Function('document', 'prompt', 'alert',
    script + '\nreturn { init, zoom, mark, fr: () => fr };')(document,
    () => null, (m) => fail('alert: ' + m));

const W = +root['data-w'], X0 = +root['data-x0'], total = +root['data-total'];
const near = (a, b) => Math.abs(a - b) < 0.011;
const num = (g, k) => +g.children.rect.getAttribute(k);
const first = frames.map((g) => [num(g, 'x'), num(g, 'width')]);
function same(what) {
  frames.forEach((g, i) => {
    if (!near(num(g, 'x'), first[i][0]) || !near(num(g, 'width'), first[i][1]) ||
        g.style.display !== '' || g.getAttribute('class') !== 'f')
      fail(what + ': frame ' + g.children.title.textContent + ' moved');
  });
}
api.init();
api.zoom(null);
same('zoom(null)');

const fr = api.fr();
const z = fr.find((f) => f.name === zname);
if (!z) fail('no frame ' + zname);
z.g.onclick();
let shown = 0, faded = 0, hidden = 0;
for (const f of fr) {
  const x = num(f.g, 'x'), w = num(f.g, 'width'), what = 'zoom on ' + zname +
      ': frame ' + f.name + ' at depth ' + f.d;
  if (f.d >= z.d && f.x >= z.x && f.x + f.n <= z.x + z.n) {
    if (!near(x, X0 + (f.x - z.x) * W / z.n) || !near(w, f.n * W / z.n) ||
        f.g.style.display !== '')
      fail(what + ' not scaled: x ' + x + ' width ' + w);
    shown++;
  } else if (f.d < z.d && f.x <= z.x && f.x + f.n >= z.x + z.n) {
    if (!near(x, X0) || !near(w, W) || f.g.getAttribute('class') !== 'f a')
      fail(what + ' not spanning the width, faded');
    faded++;
  } else {
    if (f.g.style.display !== 'none') fail(what + ' not hidden');
    hidden++;
  }
}
if (byId.unzoom.style.display !== '') fail('Reset Zoom not shown');
console.log('zoom ' + zname + ': ' + shown + ' shown, ' + faded + ' faded, ' +
    hidden + ' hidden');
fr.find((f) => f.d === 0).g.onclick();
same('a click on the root');
if (byId.unzoom.style.display !== 'none') fail('Reset Zoom still shown');

api.mark(regex);
const re = new RegExp(regex);
for (const f of fr) {
  const marked = f.g.children.rect.getAttribute('fill') !== f.fill;
  if (marked !== (f.d > 0 && re.test(f.name)))
    fail('search ' + regex + ': frame ' + f.name + (marked ? '' : ' not') +
        ' marked');
}
if (byId.unsearch.style.display !== '') fail('Reset Search not shown');
console.log('search ' + regex + ': ' + byId.matched.textContent);
api.mark('');
for (const f of fr)
  if (f.g.children.rect.getAttribute('fill') !== f.fill)
    fail('Reset Search: frame ' + f.name + ' still marked');
if (byId.unsearch.style.display !== 'none') fail('Reset Search still shown');
