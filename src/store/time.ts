/** Unix seconds, the unit of every `*_at` column. */
export const nowSeconds = () => Math.floor(Date.now() / 1000);
