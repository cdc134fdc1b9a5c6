// SIGINT, SIGTERM and SIGHUP for every verb. A verb that stops cooperatively (strata wave
// checks between steps) gets the first signal as a request: what is being written is
// finished, the verb stops and says where it stopped. Otherwise, and on a second signal,
// the handler removes every open output temporary (io::remove_temporaries) and exits at
// once. Either way the exit status is 128 + the signal's number.
#pragma once

namespace strata::cli {

void install_signal_handlers();
// For the duration of a verb that checks interrupted() between its steps.
void set_cooperative(bool on);
// Whether this process says what a signal did (rank 0 of a job of several ranks; every
// other rank stops quietly), and whether it is one rank of such a job.
void set_speaker(bool speaker, bool job);
// The signal received (0 when none).
int interrupted();
const char* signal_name(int sig);

}  // namespace strata::cli
