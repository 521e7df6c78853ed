-- The club's record: every message a table published, once, keyed by (club, table, match, seq).
CREATE TABLE messages (
    club text NOT NULL,
    table_name text NOT NULL,
    match integer NOT NULL,
    seq integer NOT NULL,
    kind text NOT NULL,
    hand integer,
    at timestamptz NOT NULL,
    body jsonb NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (club, table_name, match, seq)
);
CREATE INDEX messages_by_kind ON messages (club, table_name, match, kind);

-- What arrived and could not be used, with why; one row per distinct payload on a topic.
CREATE TABLE rejected (
    id bigserial PRIMARY KEY,
    topic text NOT NULL,
    digest text NOT NULL,
    payload bytea NOT NULL,
    reason text NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (topic, digest)
);

-- Each table's retained status, merged: an offline last will keeps the game and score last seen.
CREATE TABLE table_status (
    club text NOT NULL,
    table_name text NOT NULL,
    body jsonb NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (club, table_name)
);

-- A table the club's director flagged by hand (a dispute, a table to look at).
CREATE TABLE table_flags (
    club text NOT NULL,
    table_name text NOT NULL,
    reason text NOT NULL,
    flagged_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (club, table_name)
);

-- Rounds: who plays at which table, on which side (a team in a partnership game, a seat in Nap).
CREATE TABLE rounds (
    club text NOT NULL,
    number integer NOT NULL,
    method text NOT NULL,
    seats integer NOT NULL,
    sides integer NOT NULL,
    entrants jsonb NOT NULL,
    tables jsonb NOT NULL,
    started_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (club, number)
);
CREATE TABLE seatings (
    club text NOT NULL,
    round integer NOT NULL,
    table_name text NOT NULL,
    side integer NOT NULL,
    entrant text NOT NULL,
    PRIMARY KEY (club, round, table_name, side),
    FOREIGN KEY (club, round) REFERENCES rounds (club, number)
);
