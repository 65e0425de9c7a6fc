// Tests: maps
