// Replaced by the relay branch's tests.
