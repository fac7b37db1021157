// libevdev and its uinput API, plus the kernel's input codes (linux/input.h via libevdev).
#include <libevdev/libevdev.h>
#include <libevdev/libevdev-uinput.h>
#include <fcntl.h>
