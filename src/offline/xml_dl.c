/*
 * xml_dl.c - dlopen of libxml2.so.2 for the `nvidia-smi -q -x` reader; see
 * xml_dl.h.
 *
 * Each parse opens the library and closes it afterwards; RTLD_NODELETE keeps
 * it mapped after the first, so a later open is a reference count and nine
 * dlsym() calls (microseconds), and libxml2's own one-time set-up
 * (xmlInitParser) is not redone.  A process that never reads XML never maps
 * it.  When it is missing, reading -q -x output fails with a sentence that
 * says which package to install; every other format still reads.
 */
#include "offline/xml_dl.h"

#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "core/i18n.h"

static const struct {
	const char *name;
	size_t off;
} xml_syms[] = {
	{ "xmlNewParserCtxt", offsetof(struct gd_xml_api, new_ctxt) },
	{ "xmlCtxtReadMemory", offsetof(struct gd_xml_api, read_memory) },
	{ "xmlCtxtGetLastError", offsetof(struct gd_xml_api, last_error) },
	{ "xmlDocGetRootElement", offsetof(struct gd_xml_api, root) },
	{ "xmlNodeGetContent", offsetof(struct gd_xml_api, content) },
	{ "xmlGetProp", offsetof(struct gd_xml_api, get_prop) },
	/* A data symbol: dlsym gives the address of the variable. */
	{ "xmlFree", offsetof(struct gd_xml_api, free_var) },
	{ "xmlFreeDoc", offsetof(struct gd_xml_api, free_doc) },
	{ "xmlFreeParserCtxt", offsetof(struct gd_xml_api, free_ctxt) },
};

int gd_xml_open(struct gd_xml_api *api, const char *soname, struct gd_err *err)
{
	const char *e;

	memset(api, 0, sizeof *api);
	dlerror();
	api->dl = dlopen(soname, RTLD_LAZY | RTLD_LOCAL | RTLD_NODELETE);
	if (!api->dl) {
		e = dlerror();
		if (!e || strstr(e, "No such file") || strstr(e, strerror(ENOENT))) /* dlerror() speaks the locale */
			return gd_err_set(err, -ENOENT,
					  _("%s is not installed: cannot read nvidia-smi -q -x output (apt-get install libxml2)"),
					  soname);
		return gd_err_set(err, -ELIBBAD, _("%s cannot be loaded (%s): cannot read nvidia-smi -q -x output"),
				  soname, e);
	}
	for (size_t i = 0; i < sizeof xml_syms / sizeof xml_syms[0]; i++) {
		void *p = dlsym(api->dl, xml_syms[i].name);

		if (!p) {
			gd_xml_close(api);
			return gd_err_set(err, -ELIBBAD, _("%s has no %s: cannot read nvidia-smi -q -x output"), soname,
					  xml_syms[i].name);
		}
		/* POSIX: a function pointer and void * have the same size. */
		memcpy((char *)api + xml_syms[i].off, &p, sizeof p);
	}
	return 0;
}

void gd_xml_close(struct gd_xml_api *api)
{
	if (api->dl)
		dlclose(api->dl);
	memset(api, 0, sizeof *api);
}
