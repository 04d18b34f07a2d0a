const MB = 1024 * 1024;
const KB = 1024;
const DAY_SECONDS = 24 * 60 * 60;

/** The spec's limits (SPEC.md "Limits"): published as they are by `GET /api/v1/platform/config`. */
export const SPEC_LIMITS = {
  globalCommandsPerApplication: 50,
  optionsPerCommand: 25,
  choicesPerOption: 25,
  optionDescriptionLength: 100,
  commandNameLength: 32,
  stringOptionMaxLength: 6000,
  channelTypesPerOption: 10,
  bulkDeleteMessages: 100,
  botMessageListMax: 100,
  botMessageListDefault: 50,
  auditLogPageDefault: 50,
  auditLogPageMax: 100,
  messagePage: 50,
  searchDefault: 25,
  attachmentBytes: 25 * MB,
  attachmentBytesPremium: 500 * MB,
  serverIconBytes: 8 * MB,
  serverBannerBytes: 10 * MB,
  userAvatarBytes: 2 * MB,
  userBannerBytes: 5 * MB,
  bioLength: 500,
  emojiBytes: 256 * KB,
  emojiNameLength: 32,
  emojisPerServer: 50,
  soundboardBytes: 8 * MB,
  soundboardNameLength: 40,
  timeoutMinSeconds: 60,
  timeoutMaxSeconds: 28 * DAY_SECONDS,
  bannerOffsetMin: 0,
  bannerOffsetMax: 100,
  webhookExecutesPerMinute: 30,
  connectionsPerUser: 20,
  serverGifBytes: 8 * MB,
  serverStickerBytes: 512 * KB,
  serverGifsPerServer: 100,
} as const;

/**
 * Every limit of the platform, in one table: the spec's (flat, as published) and Hearth's own
 * where the spec is silent, grouped by feature. Schemas and rules read them from here, and error
 * messages are built from them, so a number is changed in one place. Sizes are bytes, durations
 * seconds, lengths characters (embeds: code points).
 *
 * Not here: abuse limits a host tunes (rate limits, connections per user: src/config.ts; the
 * resource caps and image dimensions, ./caps.ts and ./image-dimensions.ts, set there too), and
 * internal bounds no client can reach by a request of its own (the store's group-commit size,
 * caps on what an external AI or GIF provider answers).
 */
export const LIMITS = {
  ...SPEC_LIMITS,
  /** docs/README.md "Requests". */
  request: {
    /** A JSON (non-multipart) body. */
    jsonBodyBytes: 1 * MB,
    /** JSON nesting, refused before parsing: no client needs more, and deep input is costly downstream. */
    jsonDepth: 32,
    /** Room for the multipart framing and small text fields around an upload's files. */
    multipartOverheadBytes: 64 * KB,
    /** Any body at all (the largest upload plus framing); Bun refuses bigger ones itself. */
    bodyBytes: SPEC_LIMITS.attachmentBytesPremium + 16 * MB,
  },
  /** docs/auth.md, docs/users.md. */
  account: {
    usernameMin: 2,
    usernameMax: 32,
    passwordMin: 8,
    passwordMax: 256,
    emailLength: 254,
    /** A login is a username or an email. */
    loginLength: 254,
    connectionNameLength: 100,
    connectionUrlLength: 512,
    /** docs/users.md, "Custom status": its text, its emoji field (custom emoji markup is the longest), its expiry in seconds. */
    customStatusLength: 128,
    customStatusEmojiLength: 100,
    customStatusExpiryMin: 60,
    customStatusExpiryMax: 30 * 24 * 60 * 60,
  },
  /** docs/servers.md. */
  server: {
    nameLength: 100,
    descriptionLength: 1000,
    welcomeMessageLength: 500,
    vanityMin: 3,
    vanityMax: 32,
    /** Entries of the caller's server-list order. */
    listOrderEntries: 500,
    /** Muting a server: at most ten years. */
    muteMaxSeconds: 10 * 365 * DAY_SECONDS,
    gifNameLength: 32,
  },
  /** docs/servers.md, "Members": the paged member list and the member search (Discord's sizes). */
  members: {
    pageMax: 1000,
    /** A page asked for with `after` alone. */
    pageDefault: 1000,
    searchMax: 100,
    searchDefault: 100,
    /** A search's `query`: no username or bot name is longer (account.usernameMax, bot.applicationNameLength). */
    queryLength: 32,
  },
  /** docs/channels.md. */
  channel: {
    nameLength: 100,
    topicLength: 1024,
    slowmodeMaxSeconds: 21600,
    positionMax: 1_000_000,
    /** Entries of one reorder (channels, categories). */
    reorderEntries: 500,
    /** A category or parent id as sent, before it is looked up. */
    idLength: 64,
  },
  /** docs/roles.md. */
  role: {
    nameLength: 100,
    positionMax: 1_000_000,
    reorderEntries: 1000,
  },
  /** docs/moderation.md. */
  moderation: {
    reasonLength: 512,
    /** A ban's `delete_message_seconds`: Discord's 7 days. */
    deleteMessageMaxSeconds: 7 * DAY_SECONDS,
  },
  /** docs/invites.md. */
  invite: {
    maxAgeSeconds: 30 * DAY_SECONDS,
    maxUses: 1000,
    /** The longest code looked up (404 beyond): invite codes are 10 characters, vanity codes at most 32. */
    codeLength: 64,
  },
  /** docs/messages.md, docs/reactions-pins.md. Shared by channel messages and DMs. */
  message: {
    contentLength: 4000,
    filesPerMessage: 10,
    fileNameLength: 255,
    /** A remote file or GIF URL. */
    urlLength: 2048,
    pageMax: 100,
    /** Discord's number; the spec sets none. */
    pinsPerChannel: 50,
    /** A reaction's Unicode emoji, in UTF-16 code units (long ZWJ families fit). */
    unicodeEmojiLength: 64,
    searchQueryLength: 200,
    searchMax: 100,
    /** Words of a search query that are matched; later ones are ignored. */
    searchWords: 32,
    /** A send's `nonce` as a string (Discord's limit; docs/messages.md, "Idempotent sends"). */
    nonceLength: 25,
    /** How long an enforced nonce answers its first message: retries come within seconds, 5 minutes covers a restart. */
    nonceSeconds: 300,
  },
  /** docs/embeds.md: lengths count Unicode code points. */
  embed: {
    embedsPerMessage: 10,
    title: 256,
    description: 4096,
    fields: 25,
    fieldName: 256,
    fieldValue: 1024,
    footerText: 2048,
    authorName: 256,
    totalCharacters: 6000,
    url: 2048,
    componentsPerEmbed: 25,
    buttonLabel: 80,
    customId: 100,
    selectOptions: 25,
    optionLabel: 100,
    optionValue: 100,
    optionDescription: 100,
    placeholder: 150,
    selectValues: 25,
    emojiName: 64,
    emojiId: 64,
    channelTypes: 10,
  },
  /** docs/dms.md. Groups: 2-10 other users at creation; at most 10 besides the owner, ever. */
  dm: {
    groupMinOthers: 2,
    groupMaxOthers: 10,
    /** `member_ids` as sent when creating a group (before duplicates and the caller are dropped). */
    groupCreateIds: 50,
    groupNameLength: 100,
    /** A group's icon: the server icon's limit. */
    groupIconBytes: SPEC_LIMITS.serverIconBytes,
    pinsPerConversation: 50,
  },
  /** docs/webhooks.md. */
  webhook: {
    nameLength: 80,
    avatarUrlLength: 2048,
  },
  /** docs/applications.md, docs/bot-rest.md, docs/commands.md, docs/interactions.md. */
  bot: {
    applicationNameLength: 32,
    applicationDescriptionLength: 400,
    activityTextLength: 128,
    /** A STRING option's `min_length`/`max_length`: at least this; at most `stringOptionMaxLength`. */
    stringOptionMinLength: 1,
    choiceNameLength: 100,
    /** A choice's string value. */
    choiceValueLength: 100,
    /** `custom_id` of a `message:component` press. */
    customIdLength: 100,
  },
  /** docs/soundboard.md. */
  soundboard: {
    soundsPerServer: 50,
  },
  /** docs/voice.md, "Signaling". */
  voice: {
    /**
     * A `voice:signal` or `dm:call-signal` payload, serialized as JSON. Chromium's offers,
     * measured: 1.3 KB for audio, 5.5 KB for audio and video with three simulcast layers, 6.1 KB
     * once its candidates are gathered in; an ICE candidate about 210 bytes.
     */
    signalBytes: 16 * KB,
  },
  /** docs/gateway.md, "Presence". */
  gateway: {
    /** `presence:subscribe`: the ids of one server a socket may ask for at once (a member list's screenful and then some). */
    presenceIdsPerServer: 200,
    /** ... and over all servers together, per socket. */
    presenceIdsPerSocket: 1000,
  },
  /** docs/gifs.md. */
  gif: {
    pageDefault: 25,
    pageMax: 50,
    queryLength: 100,
    cursorLength: 512,
  },
  /** docs/reports.md. */
  report: {
    reasonLength: 1000,
    noteLength: 1000,
    perHour: 30,
    pageDefault: 50,
    pageMax: 100,
  },
  /** docs/admin.md. */
  admin: {
    pageDefault: 50,
    pageMax: 100,
    searchLength: 100,
  },
  /** docs/ai.md: the assistant's requests, its settings' bounds (docs/ai.md#settings) and its keys. */
  ai: {
    titleLength: 100,
    contentLength: 16_000,
    attachmentsPerTurn: 10,
    /** An AI conversation or stream id in a body, before it is looked up. */
    idTextLength: 100,
    attachmentUrlLength: 2048,
    historyDefault: 50,
    historyMax: 100,
    modelIdLength: 200,
    dailyMsgLimitMax: 1_000_000,
    maxUploadMbMin: 1,
    maxUploadMbMax: 100,
    welcomeLength: 2000,
    keyNameLength: 100,
    keyBaseUrlLength: 2048,
    apiKeyLength: 4096,
    modelsPerKey: 50,
    modelNameLength: 100,
    modelFlags: 10,
    modelFlagLength: 32,
  },
  /** docs/audio.md: 60 ms of 48 kHz stereo 16-bit PCM (48000 * 0.06 * 2 * 2), Opus's longest frame at the highest rate. */
  audioFrameBytes: 11520,
} as const;
