/* Plugin loading: dlopen, check the ABI version, register through a registrar that remembers
 * what the plugin added, roll back on failure; reference counted by canonical path. */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "register/registry_impl.h"

struct op_plugin {
    char path[PATH_MAX]; /* canonical */
    char name[64];
    void *handle;
    int refs;
    op_registrar reg;
    struct op_plugin *next;
};

static op_plugin *g_plugins;
/* Serialises loads and unloads (the registry lock is taken inside, per op). */
static pthread_mutex_t g_plugins_lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local char g_plugin_msg[512];

const char *op_plugin_error(void)
{
    return g_plugin_msg;
}

static op_status opnn__plugin_fail(op_status s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static op_status opnn__plugin_fail(op_status s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_plugin_msg, sizeof(g_plugin_msg), fmt, ap);
    va_end(ap);
    return s;
}

typedef const op_plugin_info *(*opnn_plugin_entry_fn)(void);

op_status op_load_plugin(const char *path, op_plugin **out)
{
    g_plugin_msg[0] = '\0';
    if (!path || !out)
        return opnn__plugin_fail(OP_ERR_INVALID_ARGUMENT, "op_load_plugin: %s is NULL",
                                 path ? "out" : "path");
    opnn__registry_init();
    char canon[PATH_MAX];
    if (!realpath(path, canon))
        return opnn__plugin_fail(OP_ERR_PLUGIN, "op_load_plugin: cannot open '%s': no such file",
                                 path);

    op_status st = OP_OK;
    pthread_mutex_lock(&g_plugins_lock);
    for (op_plugin *p = g_plugins; p; p = p->next) {
        if (!strcmp(p->path, canon)) {
            p->refs++;
            *out = p;
            goto out_unlock;
        }
    }
    op_plugin *p = calloc(1, sizeof(*p));
    if (!p) {
        st = opnn__plugin_fail(OP_ERR_OUT_OF_MEMORY, "op_load_plugin: out of memory");
        goto out_unlock;
    }
    snprintf(p->path, sizeof(p->path), "%s", canon);
    p->handle = dlopen(canon, RTLD_NOW | RTLD_LOCAL);
    if (!p->handle) {
        const char *why = dlerror();
        st = opnn__plugin_fail(OP_ERR_PLUGIN, "op_load_plugin: cannot load '%s': %s", path,
                               why ? why : "unknown error");
        goto out_free_plugin;
    }
    dlerror();
    void *sym = dlsym(p->handle, OP_PLUGIN_ENTRY_SYMBOL);
    if (!sym) {
        st = opnn__plugin_fail(OP_ERR_PLUGIN, "op_load_plugin: '%s' has no entry symbol '%s'", path,
                               OP_PLUGIN_ENTRY_SYMBOL);
        goto out_close;
    }
    opnn_plugin_entry_fn entry;
    memcpy(&entry, &sym, sizeof(entry)); /* object pointer to function pointer, POSIX-sanctioned */
    const op_plugin_info *info = entry();
    if (!info) {
        st = opnn__plugin_fail(OP_ERR_PLUGIN, "op_load_plugin: '%s' entry returned NULL", path);
        goto out_close;
    }
    if (info->abi_version != OP_ABI_VERSION) {
        st = opnn__plugin_fail(OP_ERR_PLUGIN,
                               "op_load_plugin: '%s' was built for ABI version %u, this opnn has "
                               "ABI version %u",
                               path, (unsigned)info->abi_version, (unsigned)OP_ABI_VERSION);
        goto out_close;
    }
    if (!info->register_ops) {
        st =
            opnn__plugin_fail(OP_ERR_PLUGIN, "op_load_plugin: '%s' has no register function", path);
        goto out_close;
    }
    snprintf(p->name, sizeof(p->name), "%s", info->name ? info->name : "plugin");
    p->reg.name = p->name;
    p->reg.staging = true;
    st = info->register_ops(&p->reg);
    if (st != OP_OK) {
        /* leave nothing half-registered */
        opnn__registrar_remove_all(&p->reg);
        opnn__plugin_fail(st, "op_load_plugin: plugin '%s' (%s) failed to register its ops: %s",
                          p->name, path,
                          opnn__registry_error()[0] ? opnn__registry_error() : op_status_str(st));
        if (st != OP_ERR_ALREADY_EXISTS && st != OP_ERR_OUT_OF_MEMORY)
            st = OP_ERR_PLUGIN;
        goto out_close;
    }
    opnn__registrar_commit(&p->reg);
    p->refs = 1;
    p->next = g_plugins;
    g_plugins = p;
    *out = p;
    goto out_unlock;

out_close:
    free(p->reg.ops);
    dlclose(p->handle);
out_free_plugin:
    free(p);
out_unlock:
    pthread_mutex_unlock(&g_plugins_lock);
    return st;
}

op_status op_unload_plugin(op_plugin *plugin)
{
    g_plugin_msg[0] = '\0';
    if (!plugin)
        return opnn__plugin_fail(OP_ERR_INVALID_ARGUMENT, "op_unload_plugin: plugin is NULL");
    op_status st = OP_OK;
    pthread_mutex_lock(&g_plugins_lock);
    op_plugin **link = &g_plugins;
    while (*link && *link != plugin)
        link = &(*link)->next;
    if (!*link) {
        st = opnn__plugin_fail(OP_ERR_INVALID_ARGUMENT,
                               "op_unload_plugin: %p is not a loaded plugin", (void *)plugin);
        goto out_unlock;
    }
    if (--plugin->refs > 0)
        goto out_unlock;
    *link = plugin->next;
    /* Under the registry's write lock: no op_run of these ops is in flight afterwards, so the
     * code can go. */
    opnn__registrar_remove_all(&plugin->reg);
    free(plugin->reg.ops);
    dlclose(plugin->handle);
    free(plugin);
out_unlock:
    pthread_mutex_unlock(&g_plugins_lock);
    return st;
}
