// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kernel addresses to function names (ksym.h): a sorted table of the
 * text symbols of /proc/kallsyms, kept while /proc/modules stays the
 * same, and a pass over the file for what the table cannot vouch for.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ksym.h"

struct ent {
	uint64_t addr;
	uint32_t name;		/* offsets in pool; rising in file order */
	uint32_t module;	/* 0: the kernel itself ("" at pool[0]) */
};

struct ksyms {
	int kallsyms_fd, modules_fd;
	bool hidden;		/* the file shows no addresses: for good */
	bool loaded;
	int table_err;		/* why the last (re)read failed; 0: it did not */
	uint64_t modules_sig;	/* of /proc/modules when the table was read */
	bool *todo;		/* ksyms_name()'s, kept for the next call */
	unsigned int todo_cap;
	struct ent *ent;
	size_t nr, cap;
	char *pool;
	size_t pool_len, pool_cap;
};

static bool stopped(const bool *stop)
{
	return stop && __atomic_load_n(stop, __ATOMIC_RELAXED);
}

/* A stdio stream over @fd from its start, @fd itself left open. */
static FILE *rewound(int fd)
{
	FILE *f;
	int dfd;

	if (fd < 0 || lseek(fd, 0, SEEK_SET) < 0)
		return NULL;
	dfd = dup(fd);
	if (dfd < 0)
		return NULL;
	f = fdopen(dfd, "r");
	if (!f)
		close(dfd);
	return f;
}

/*
 * One line of kallsyms: "ADDR TYPE NAME[\t[MODULE]]". false for a line
 * that is not a text symbol with an address; *@any is set by any address.
 */
static bool parse_line(char *line, uint64_t *addr, char **name, char **mod,
		       bool *any)
{
	char *end, *p;

	/* The address and type first: most lines end there. */
	*addr = strtoull(line, &end, 16);
	if (end == line || end[0] != ' ' || !end[1] || end[2] != ' ')
		return false;
	if (*addr)
		*any = true;
	if ((end[1] != 't' && end[1] != 'T') || !*addr)
		return false;
	*name = end + 3;
	*mod = NULL;
	p = strpbrk(*name, " \t\n");
	if (p && *p != '\n') {
		*p++ = '\0';
		p += strspn(p, " \t");
		if (*p == '[') {
			*mod = ++p;
			p = strchr(p, ']');
			if (p)
				*p = '\0';
		}
	} else if (p) {
		*p = '\0';
	}
	return **name;
}

/* --- /proc/modules: which modules are real, and whether any changed --- */

struct modules {
	char (*name)[64];
	size_t nr;
	uint64_t sig;
};

static void fnv(uint64_t *h, const char *s)
{
	for (; *s; s++)
		*h = (*h ^ (unsigned char)*s) * 0x100000001b3ULL;
	*h = (*h ^ ' ') * 0x100000001b3ULL;
}

/*
 * The loaded modules and a signature of what decides their symbols
 * (name, size, state, address; not the use count, which changes as
 * they are used). No file: no modules, signature 0.
 */
static int modules_read(int fd, struct modules *m)
{
	char line[512], name[64], size[32], state[16], addr[32];
	FILE *f;

	memset(m, 0, sizeof(*m));
	if (fd < 0)
		return 0;
	f = rewound(fd);
	if (!f)
		return -errno;
	m->sig = 0xcbf29ce484222325ULL;
	while (fgets(line, sizeof(line), f)) {
		void *p;

		state[0] = '\0';
		addr[0] = '\0';
		if (sscanf(line, "%63s %31s %*s %*s %15s %31s", name, size,
			   state, addr) < 2)
			continue;
		fnv(&m->sig, name);
		fnv(&m->sig, size);
		fnv(&m->sig, state);
		fnv(&m->sig, addr);
		p = realloc(m->name, (m->nr + 1) * sizeof(*m->name));
		if (!p) {
			fclose(f);
			free(m->name);
			m->name = NULL;
			return -ENOMEM;
		}
		m->name = p;
		memcpy(m->name[m->nr++], name, sizeof(name));
	}
	if (ferror(f)) {
		int err = errno ? errno : EIO;

		fclose(f);
		free(m->name);
		m->name = NULL;
		return -err;
	}
	fclose(f);
	return 0;
}

static bool module_loaded(const struct modules *m, const char *name)
{
	size_t i;

	for (i = 0; i < m->nr; i++)
		if (!strcmp(m->name[i], name))
			return true;
	return false;
}

/* --- the table --- */

static void table_free(struct ksyms *k)
{
	free(k->ent);
	free(k->pool);
	k->ent = NULL;
	k->pool = NULL;
	k->nr = 0;
	k->cap = 0;
	k->pool_len = 0;
	k->pool_cap = 0;
	k->loaded = false;
}

static int pool_add(struct ksyms *k, const char *s, uint32_t *off)
{
	size_t len = strlen(s) + 1;

	if (k->pool_len + len > k->pool_cap) {
		size_t cap = k->pool_cap ? k->pool_cap * 2 : 1 << 16;
		char *p;

		while (cap < k->pool_len + len)
			cap *= 2;
		if (cap > UINT32_MAX)
			return -E2BIG;
		p = realloc(k->pool, cap);
		if (!p)
			return -ENOMEM;
		k->pool = p;
		k->pool_cap = cap;
	}
	memcpy(k->pool + k->pool_len, s, len);
	*off = k->pool_len;
	k->pool_len += len;
	return 0;
}

static int ent_add(struct ksyms *k, uint64_t addr, uint32_t name,
		   uint32_t module)
{
	if (k->nr == k->cap) {
		size_t cap = k->cap ? k->cap * 2 : 4096;
		struct ent *p = realloc(k->ent, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		k->ent = p;
		k->cap = cap;
	}
	k->ent[k->nr++] = (struct ent){ addr, name, module };
	return 0;
}

/* By address; aliases in file order, so the last one read is found. */
static int ent_cmp(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

/*
 * Read the kernel's and the loaded modules' text symbols. Other bracketed
 * names ([bpf], [__builtin__ftrace], ...) are code made and freed at run
 * time, which a table read once cannot follow: they are left out.
 */
static int table_read(struct ksyms *k, const struct modules *m,
		      const bool *stop)
{
	char line[512], *name, *mod, last_mod[64] = "";
	uint32_t name_off, mod_off = 0, empty;
	bool any = false, keep = true;
	struct ent *ent;
	char *pool;
	uint64_t addr;
	int ret = 0;
	FILE *f;

	table_free(k);
	f = rewound(k->kallsyms_fd);
	if (!f)
		return -errno;
	ret = pool_add(k, "", &empty);
	while (!ret && fgets(line, sizeof(line), f)) {
		if (stopped(stop)) {
			ret = -EINTR;
			break;
		}
		if (!parse_line(line, &addr, &name, &mod, &any))
			continue;
		if (!mod) {
			mod_off = empty;
			keep = true;
			last_mod[0] = '\0';
		} else if (strcmp(mod, last_mod)) {
			snprintf(last_mod, sizeof(last_mod), "%s", mod);
			keep = module_loaded(m, mod);
			if (keep)
				ret = pool_add(k, mod, &mod_off);
		}
		if (!keep || ret)
			continue;
		ret = pool_add(k, name, &name_off);
		if (!ret)
			ret = ent_add(k, addr, name_off, mod_off);
	}
	fclose(f);
	if (!ret && !any) {
		k->hidden = true;
		ret = -ENODATA;
	}
	if (ret) {
		table_free(k);
		return ret;
	}
	qsort(k->ent, k->nr, sizeof(*k->ent), ent_cmp);
	/* Held for the daemon's life (and locked): no spare room. */
	ent = k->nr ? realloc(k->ent, k->nr * sizeof(*ent)) : NULL;
	if (ent) {
		k->ent = ent;
		k->cap = k->nr;
	}
	pool = realloc(k->pool, k->pool_len);
	if (pool) {
		k->pool = pool;
		k->pool_cap = k->pool_len;
	}
	k->modules_sig = m->sig;
	k->loaded = true;
	return 0;
}

/* (Re)read the table if it was never read or the modules changed. */
static int table_fresh(struct ksyms *k, const bool *stop)
{
	struct modules m;
	int ret;

	if (k->hidden)
		return -ENODATA;
	ret = modules_read(k->modules_fd, &m);
	if (!ret && (!k->loaded || m.sig != k->modules_sig))
		ret = table_read(k, &m, stop);
	free(m.name);
	/* Stopped is not failed: the next call reads it again. */
	if (ret != -ENODATA && ret != -EINTR)
		k->table_err = ret;
	return ret;
}

/*
 * @w from the table, if the symbol at or below it is followed by another
 * of the same module (its end known, and no code made since can sit in
 * between: modules and the kernel are each one block of text).
 */
static bool table_name(const struct ksyms *k, struct ksym *w)
{
	size_t lo = 0, hi = k->nr;
	const struct ent *e, *next;

	/* The first entry above the address. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->ent[mid].addr <= w->addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || lo == k->nr)
		return false;
	e = &k->ent[lo - 1];
	next = &k->ent[lo];
	if (e->module != next->module)
		return false;
	w->start = e->addr;
	w->size = next->addr - e->addr;
	snprintf(w->name, sizeof(w->name), "%s", k->pool + e->name);
	snprintf(w->module, sizeof(w->module), "%s", k->pool + e->module);
	return true;
}

/*
 * One pass over the file for the entries of @w in @todo (their size holds
 * the next symbol's start meanwhile). false if it gives no addresses.
 */
static bool file_name(struct ksyms *k, struct ksym *w, unsigned int n,
		      const bool *todo, const bool *stop)
{
	char line[512], *name, *mod;
	bool any = false;
	unsigned int i;
	uint64_t addr;
	FILE *f;

	for (i = 0; i < n; i++)
		if (todo[i])
			w[i].size = UINT64_MAX;
	f = rewound(k->kallsyms_fd);
	if (!f)
		return false;
	/* Every kernel symbol is read: starvd's stop does not wait for it. */
	while (fgets(line, sizeof(line), f) && !stopped(stop)) {
		if (!parse_line(line, &addr, &name, &mod, &any))
			continue;
		for (i = 0; i < n; i++) {
			struct ksym *s = &w[i];

			if (!todo[i])
				continue;
			if (addr <= s->addr && addr >= s->start) {
				s->start = addr;
				snprintf(s->name, sizeof(s->name), "%s", name);
				snprintf(s->module, sizeof(s->module), "%s",
					 mod ? mod : "");
			} else if (addr > s->addr && addr < s->size) {
				s->size = addr;
			}
		}
	}
	fclose(f);
	for (i = 0; i < n; i++)
		if (todo[i])
			w[i].size = w[i].size == UINT64_MAX || !w[i].name[0] ?
				    0 : w[i].size - w[i].start;
	return any;
}

struct ksyms *ksyms_open(int kallsyms_fd, int modules_fd)
{
	struct ksyms *k = calloc(1, sizeof(*k));

	if (!k) {
		if (kallsyms_fd >= 0)
			close(kallsyms_fd);
		if (modules_fd >= 0)
			close(modules_fd);
		return NULL;
	}
	k->kallsyms_fd = kallsyms_fd;
	k->modules_fd = modules_fd;
	return k;
}

int ksyms_name(struct ksyms *k, struct ksym *w, unsigned int n,
	       const bool *stop)
{
	unsigned int i, left = 0;
	bool fresh;
	int ret;

	if (!k || k->kallsyms_fd < 0)
		return -EBADF;
	for (i = 0; i < n; i++) {
		uint64_t addr = w[i].addr;

		w[i] = (struct ksym){ .addr = addr };
	}
	/*
	 * Without a fresh table (no memory, say: ksyms_table_error()), each
	 * stack takes a pass: an old one may name a module's address after
	 * another that was loaded there since.
	 */
	ret = table_fresh(k, stop);
	if (ret == -ENODATA || !n)
		return ret == -ENODATA ? ret : 0;
	fresh = !ret;
	if (n > k->todo_cap) {
		bool *todo = realloc(k->todo, n * sizeof(*todo));

		if (!todo)
			return -ENOMEM;
		k->todo = todo;
		k->todo_cap = n;
	}
	for (i = 0; i < n; i++) {
		k->todo[i] = !fresh || !table_name(k, &w[i]);
		left += k->todo[i];
	}
	return left && !file_name(k, w, n, k->todo, stop) ? -ENODATA : 0;
}

int ksyms_table_error(const struct ksyms *k)
{
	return k ? k->table_err : -EBADF;
}

size_t ksyms_bytes(const struct ksyms *k)
{
	return k && k->loaded ? k->cap * sizeof(*k->ent) + k->pool_cap : 0;
}

void ksyms_close(struct ksyms *k)
{
	if (!k)
		return;
	table_free(k);
	free(k->todo);
	if (k->kallsyms_fd >= 0)
		close(k->kallsyms_fd);
	if (k->modules_fd >= 0)
		close(k->modules_fd);
	free(k);
}
