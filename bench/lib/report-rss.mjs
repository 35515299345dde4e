// Preloaded with `node --import` when GNU time is missing: writes this process's peak RSS (KB,
// like GNU time's %M) to $BENCH_RSS_FILE at exit.
import { writeFileSync } from 'node:fs';

process.on('exit', () => {
  if (process.env.BENCH_RSS_FILE) writeFileSync(process.env.BENCH_RSS_FILE, `${process.resourceUsage().maxRSS}\n`);
});
