// Seat names and teams. Seats are numbered from 0 clockwise; with four, N E S W (docs/games.md).

const COMPASS = ["N", "E", "S", "W"];

export function seatName(seat, players) {
  if (seat === null || seat === undefined) return "—";
  return players === 4 ? COMPASS[seat] : `Seat ${seat}`;
}

/** "N (seat 0)" for four; "Seat 3" otherwise: violation messages speak of seat numbers. */
export function seatLong(seat, players) {
  return players === 4 ? `${COMPASS[seat]} (seat ${seat})` : `Seat ${seat}`;
}

/** Team 0 is the even seats. */
export function teamName(team, players) {
  if (players === 4) return team === 0 ? "N–S" : "E–W";
  const seats = [];
  for (let s = team; s < players; s += 2) seats.push(s);
  return `Team ${seats.join("·")}`;
}

/** Where a seat sits around the oval, N at the top, clockwise (percent of the felt). */
export function seatPosition(seat, players, radius = 50) {
  const angle = -Math.PI / 2 + (2 * Math.PI * seat) / players;
  return { x: 50 + radius * Math.cos(angle), y: 50 + radius * Math.sin(angle) };
}
