import type { Database } from "bun:sqlite";
import { openDatabase, migrate } from "./database.ts";
import { UsersRepo } from "./users-repo.ts";
import { UserSettingsRepo } from "./user-settings-repo.ts";
import { StatsRepo } from "./stats-repo.ts";

/** Every repository, over one database. The only place SQL lives. */
export interface Store {
  users: UsersRepo;
  userSettings: UserSettingsRepo;
  stats: StatsRepo;
  close(): void;
}

export function createStore(databaseFile: string): Store {
  const db: Database = openDatabase(databaseFile);
  try {
    migrate(db);
  } catch (error) {
    db.close();
    throw error;
  }
  return {
    users: new UsersRepo(db),
    userSettings: new UserSettingsRepo(db),
    stats: new StatsRepo(db),
    close() {
      // A clean close checkpoints the WAL so the file is complete on its own.
      try {
        db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
      } finally {
        db.close();
      }
    },
  };
}
