// Tests: datafile
