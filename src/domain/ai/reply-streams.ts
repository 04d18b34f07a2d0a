/** A reply being streamed from a provider: whose, in which conversation, and how to stop it. */
export interface ActiveStream {
  userId: string;
  conversationId: string;
  controller: AbortController;
  finished: Promise<void>;
}

/**
 * The replies streaming now, by stream id. The assistant adds and removes them; deleting a
 * conversation ends the one streaming in it first (AiConversations), so no reply is written
 * into a conversation that is gone; shutdown stops them all.
 */
export class ReplyStreams {
  private readonly byId = new Map<string, ActiveStream>();

  add(streamId: string, stream: ActiveStream): void {
    this.byId.set(streamId, stream);
  }

  remove(streamId: string): void {
    this.byId.delete(streamId);
  }

  get(streamId: string): ActiveStream | undefined {
    return this.byId.get(streamId);
  }

  /** Ends the reply streaming in a conversation, if any; answers once it is stored. */
  async endIn(conversationId: string): Promise<void> {
    const stream = [...this.byId.values()].find((s) => s.conversationId === conversationId);
    if (!stream) return;
    stream.controller.abort();
    await stream.finished;
  }

  /** Shutdown: every stream is stopped and its reply stored. */
  async stopAll(): Promise<void> {
    const all = [...this.byId.values()];
    for (const stream of all) stream.controller.abort();
    await Promise.all(all.map((stream) => stream.finished));
  }
}
