// Seat and team names, as the server names them (state.seat_names, engine/seat_names.py): the
// names the players chose in Setup, else the compass points. The page never makes up a name, so
// it says what the terminal, the mat and the violations say.

export function seatName(state, seat) {
  if (seat === null || seat === undefined) return "—";
  return state.seat_names?.names?.[seat] ?? `seat ${seat}`;
}

/** The seat's name where room is short (a list of tricks): a compass point by its initials. */
export function seatShort(state, seat) {
  return state.seat_names?.short?.[seat] ?? seatName(state, seat);
}

/** Team 0 is the even seats, team 1 the odd ones. */
export function teamName(state, team) {
  return state.seat_names?.teams?.[team] ?? `team ${team}`;
}

/** Where a seat sits around the table, as an angle: seat 0 at the top, then clockwise. */
export function seatAngle(seat, players) {
  return -Math.PI / 2 + (2 * Math.PI * seat) / players;
}
