/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef STARVD_VERSION_H
#define STARVD_VERSION_H
#ifndef STARVD_VERSION
#define STARVD_VERSION "0.1.0"
#endif
#endif
