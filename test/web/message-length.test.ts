import { expect, test } from "bun:test";
import { characterCountText, COUNT_SHOWN_FROM, tooLongMessage } from "../../web/lib/message-length.ts";

test("the count shows only in the last COUNT_SHOWN_FROM characters, then says how far over", () => {
  expect(characterCountText(4000 - COUNT_SHOWN_FROM - 1)).toBeNull();
  expect(characterCountText(4000 - COUNT_SHOWN_FROM)).toBe("200 characters left");
  expect(characterCountText(3999)).toBe("1 character left");
  expect(characterCountText(4000)).toBe("0 characters left");
  expect(characterCountText(4001)).toBe("1 character over the limit");
  expect(characterCountText(5234)).toBe("1,234 characters over the limit");
  expect(characterCountText(90, 100)).toBe("10 characters left");
});

test("sending is refused over the limit with what to do, and allowed at it", () => {
  expect(tooLongMessage(4000)).toBeNull();
  expect(tooLongMessage(4001)).toBe("This message is 4,001 characters long, over the limit of 4,000: shorten it by 1 character to send it.");
  expect(tooLongMessage(4100)).toBe("This message is 4,100 characters long, over the limit of 4,000: shorten it by 100 characters to send it.");
});
