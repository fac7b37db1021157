// sd_notify and sd_listen_fds for Type=notify and socket activation; sd_journal_sendv for device
// health entries with structured fields.
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>
