/**
 * "SDK": how to get this server's bot SDK into a bot's folder, as one command to copy. The
 * server serves the SDK matching its own version at /sdk/latest.tgz (docs/bots.md, step 4), so
 * the command carries this server's address and needs no clone and no registry.
 */
import { CopyButton } from "../../components/copy-button.tsx";
import { Section } from "./portal-layout.tsx";

export const sdkInstallCommand = (origin: string) => `npm install ${origin}/sdk/latest.tgz`;

export function SdkSection() {
  const command = sdkInstallCommand(location.origin);
  return (
    <Section
      id="sdk-heading"
      title="SDK"
      intro="Write the bot in JavaScript or TypeScript with this server's SDK, @hearth/sdk (Node 20 or newer; import or require). In your bot's folder:"
    >
      <div class="copy-row">
        <input readOnly aria-label="Install command" value={command} spellcheck={false} onFocus={(e) => e.currentTarget.select()} />
        <CopyButton text={command} label="Copy command" />
      </div>
      <p class="muted small">
        Then <code>createBot({`{ url: "${location.origin}", token }`})</code> with the bot token above. Every operation and event is in the <a href="/docs">API reference</a>.
      </p>
    </Section>
  );
}
