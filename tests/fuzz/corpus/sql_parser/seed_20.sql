SELECT "Mixed", `back``tick` FROM "S"."T" -- comment
/* block /* nested */ */