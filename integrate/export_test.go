package integrate

// PigeonholeWords exposes pigeonholeWords to the tests.
var PigeonholeWords = pigeonholeWords
