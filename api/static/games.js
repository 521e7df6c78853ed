// The five games as the setup form offers them: seat counts and rule options (docs/games.md).
// The server validates everything again; this only saves typing at the table.

const REVOKE = (first) => ["revoke", first === "penalise" ? ["penalise", "reject"] : ["reject", "penalise"]];

export const GAMES = {
  poley: { title: "Poley", seats: [4], options: [REVOKE(), ["all-pass", ["throw-in", "vorhand-plays-one"]]] },
  shelem: {
    title: "Shelem",
    seats: [4],
    options: [
      REVOKE(),
      ["direction", ["counter-clockwise", "clockwise"]],
      ["all-pass", ["void", "eldest-opens-100"]],
      ["buried-pile", ["declarer", "last-trick"]],
      ["made-score", ["taken", "bid"]],
      ["target", 1000],
      ["must-trump", [false, true]],
    ],
  },
  "fifty-six": {
    title: "Fifty-Six",
    seats: [6],
    options: [
      REVOKE(),
      ["direction", ["clockwise", "counter-clockwise"]],
      ["double-scoring", ["multiply", "add"]],
      ["chips", 12],
      ["match-end", ["cannot-pay", "zero-chips"]],
      ["thani", [false, true]],
      ["early-end", [false, true]],
    ],
  },
  "bid-whist": {
    title: "Bid Whist",
    seats: [4],
    options: [
      REVOKE("penalise"),
      ["min-bid", [3, 4]],
      ["low-equals-high", [false, true]],
      ["dealer-may-take", [false, true]],
      ["joker-shed", [false, true]],
      ["no-trump-double", [false, true]],
      ["target", 7],
    ],
  },
  nap: {
    title: "Nap",
    seats: [4, 2, 3, 5, 6],
    options: [
      REVOKE(),
      ["min-call", [1, 2]],
      ["misery", [false, true]],
      ["wellington", [false, true]],
      ["double-header", [false, true]],
      ["pool", [false, true]],
      ["dealer-sits-out", ["default", false, true]],
      ["stake", 1],
    ],
  },
};

export function gameTitle(name) {
  return GAMES[name]?.title ?? name;
}
