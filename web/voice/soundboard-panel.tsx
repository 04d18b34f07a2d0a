/**
 * The soundboard in a voice room (docs/soundboard.md): the premium catalog (the sounds of every
 * server where the reader may use the soundboard), played for the whole room through
 * `POST /premium/soundboard/play`; everyone in the room, the reader included, then hears it
 * (`voice:soundboard`). Offered where USE_SOUNDBOARD allows; the server still decides.
 */
import { useEffect, useState } from "preact/hooks";
import { errorMessage } from "../lib/api-errors.ts";
import { ErrorAlert } from "../components/error-alert.tsx";
import type { CatalogSound } from "./types.ts";
import { rest } from "../state/app-state.ts";

export function SoundboardPanel({ premium }: { premium: boolean }) {
  const [sounds, setSounds] = useState<CatalogSound[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [playing, setPlaying] = useState<string | null>(null);
  useEffect(() => {
    if (!premium) return;
    rest.request("getSoundboardCatalog").then(setSounds, (e) => setError(errorMessage(e)));
  }, [premium]);
  const play = async (sound: CatalogSound) => {
    setPlaying(sound.id);
    setError(null);
    try {
      await rest.request("playSound", { body: { sound_id: sound.id } });
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setPlaying(null);
    }
  };
  const servers = [...new Set((sounds ?? []).map((s) => s.server_name))];
  return (
    <section class="soundboard" aria-label="Soundboard">
      <h3>Soundboard</h3>
      {!premium ? (
        <div class="soundboard-premium">
          <p>Playing sounds for the room is a Premium feature, and this account does not have Premium.</p>
          <p class="muted small">
            On Hearth, Premium is not sold: the people who run this platform grant it to accounts (an administrator, in the admin
            routes of <a href="/docs" target="_blank" rel="noopener">the API reference</a>, <code>PATCH /api/v1/admin/users/:id</code>{" "}
            with <code>{"{premium: true}"}</code>). Ask them if you would like it.
          </p>
        </div>
      ) : sounds === null && !error ? (
        <p class="muted" role="status">
          Loading sounds…
        </p>
      ) : sounds?.length === 0 ? (
        <p class="empty">No sounds yet. A server's managers upload them in its settings.</p>
      ) : (
        servers.map((server) => (
          <div key={server} class="soundboard-group" role="group" aria-label={server}>
            {servers.length > 1 && <h4 class="muted small">{server}</h4>}
            <div class="soundboard-sounds">
              {sounds!
                .filter((s) => s.server_name === server)
                .map((sound) => (
                  <button key={sound.id} type="button" class="secondary small" disabled={playing === sound.id} aria-label={`Play ${sound.name}`} onClick={() => play(sound)}>
                    <span aria-hidden="true">{sound.icon}</span> {sound.name}
                  </button>
                ))}
            </div>
          </div>
        ))
      )}
      <ErrorAlert message={error} />
    </section>
  );
}
