// sd_notify and sd_listen_fds for Type=notify and socket activation.
#include <systemd/sd-daemon.h>
