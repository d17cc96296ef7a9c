// A node:test reporter run-tests.mjs adds beside the one shown: one line per test file (the suite
// named after it in a group's entry file) with its duration, so a run can say where its time went.
export default async function* fileTimes(source) {
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { name, nesting, details } = event.data;
    if (nesting === 0 && name.startsWith('tests/')) yield `${Math.round(details.duration_ms)}\t${name}\n`;
  }
}
