//! The player view: client infos, teams, scores, positions per tick.
