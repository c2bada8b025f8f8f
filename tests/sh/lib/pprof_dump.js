// tests/sh/lib/pprof_dump.js FILE - decodes the gzipped pprof profile
// FILE with the npm package pprof-format (NODE_PATH: where it is
// installed) and prints what the tests compare: the sample types and
// period, the mappings (id, file, build-id), the totals of the two
// sample values, then the stacks as pmehisto -T folded prints them
// ("stack outermost;...;innermost COUNT", in byte order).  Fails
// (exit 1) on a location, mapping or function that is not there, and on
// a cpu value that is not the count times the period.
const fs = require('fs'), zlib = require('zlib');
const { Profile } = require('pprof-format');
const p = Profile.decode(zlib.gunzipSync(fs.readFileSync(process.argv[2])));
const str = p.stringTable.strings, n = (v) => Number(v);
const fail = (m) => { console.error('dump.js: ' + m); process.exit(1); };
if (str[0] !== '') fail('string 0 is not empty');
console.log('types ' + p.sampleType.map((t) => str[n(t.type)] + '/' +
    str[n(t.unit)]).join(' ') + ' period ' + str[n(p.periodType.type)] +
    '/' + str[n(p.periodType.unit)] + ' ' + n(p.period) +
    ' default ' + str[n(p.defaultSampleType)]);
const maps = new Map(), locs = new Map(), funcs = new Map();
for (const m of p.mapping) {
  maps.set(n(m.id), m);
  console.log('mapping ' + n(m.id) + ' ' + str[n(m.filename)] + ' ' +
      (str[n(m.buildId)] || '-'));
}
for (const f of p.function) funcs.set(n(f.id), f);
for (const l of p.location) {
  if (n(l.mappingId) !== 0 && !maps.has(n(l.mappingId)))
    fail('location ' + n(l.id) + ': no mapping ' + n(l.mappingId));
  if (l.line.length !== 1 || !funcs.has(n(l.line[0].functionId)))
    fail('location ' + n(l.id) + ': no function');
  locs.set(n(l.id), l);
}
const stacks = new Map();
let total = 0, ns = 0;
for (const s of p.sample) {
  const names = s.locationId.map((id) => {
    if (!locs.has(n(id))) fail('no location ' + n(id));
    return str[n(funcs.get(n(locs.get(n(id)).line[0].functionId)).name)]
        .replace(/[; ]/g, '_');
  }).reverse().join(';');
  stacks.set(names, (stacks.get(names) || 0) + n(s.value[0]));
  total += n(s.value[0]);
  ns += n(s.value[1]);
  if (n(s.value[1]) !== n(s.value[0]) * n(p.period)) fail('cpu != count * period');
}
console.log('total ' + total + ' ns ' + ns);
for (const k of [...stacks.keys()].sort((a, b) =>
    Buffer.compare(Buffer.from(a), Buffer.from(b))))
  console.log('stack ' + k + ' ' + stacks.get(k));
