const MB = 1024 * 1024;
const KB = 1024;

/** The spec's limits (SPEC.md "Limits"), in one place: enforced from here and published by /platform/config. */
export const LIMITS = {
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
  timeoutMaxSeconds: 28 * 24 * 60 * 60,
  bannerOffsetMin: 0,
  bannerOffsetMax: 100,
  webhookExecutesPerMinute: 30,
  connectionsPerUser: 20,
  serverGifBytes: 8 * MB,
  serverStickerBytes: 512 * KB,
  serverGifsPerServer: 100,
} as const;

/** The largest body any route accepts (premium attachments); Bun refuses bigger ones itself. */
export const MAX_REQUEST_BODY_BYTES = LIMITS.attachmentBytesPremium + 16 * MB;
