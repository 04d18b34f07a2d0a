import type { Database } from "./database.ts";

export interface PlatformCounts {
  users: number;
  bots: number;
  servers: number;
  messages: number;
}

/** Reads the trigger-maintained counters of migration 1 (no table scans). */
export class StatsRepo {
  private readonly counters;

  constructor(private readonly db: Database) {
    this.counters = db.prepare<{ name: string; value: number }, []>("SELECT name, value FROM platform_counters");
  }

  async counts(): Promise<PlatformCounts> {
    const counts: PlatformCounts = { users: 0, bots: 0, servers: 0, messages: 0 };
    for (const { name, value } of await this.db.all(this.counters)) {
      if (name in counts) counts[name as keyof PlatformCounts] = value;
    }
    return counts;
  }
}
