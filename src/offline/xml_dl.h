/*
 * xml_dl.h - libxml2, loaded with dlopen when an `nvidia-smi -q -x` file is
 * read (smi_xml.c), not linked: libxml2 pulls in ICU, liblzma and libstdc++,
 * about 1.9 MB of resident pages in every gpudoctor process, `serve`
 * included, for a parser that only `check --from` uses.
 *
 * The headers are still those of libxml2-dev (types, struct layouts,
 * XML_PARSE_* flags); only the functions come through this table.  The
 * table is owned by its caller: open it, use it, close it.  Internal to
 * src/offline/.
 */
#ifndef GD_OFFLINE_XML_DL_H
#define GD_OFFLINE_XML_DL_H

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "core/err.h"

#define GD_XML_SONAME "libxml2.so.2"

/* The libxml2 functions smi_xml.c calls, with libxml2's own prototypes. */
struct gd_xml_api {
	void *dl;
	__typeof__(xmlNewParserCtxt) *new_ctxt;
	__typeof__(xmlCtxtReadMemory) *read_memory;
	__typeof__(xmlCtxtGetLastError) *last_error;
	__typeof__(xmlDocGetRootElement) *root;
	__typeof__(xmlNodeGetContent) *content;
	__typeof__(xmlGetProp) *get_prop;
	xmlFreeFunc *free_var; /* xmlFree is a variable holding a function */
	__typeof__(xmlFreeDoc) *free_doc;
	__typeof__(xmlFreeParserCtxt) *free_ctxt;
};

/* Loads soname (GD_XML_SONAME; another name for the tests) and resolves the
 * table.  0, or negative with err saying why: -ENOENT when the library is
 * not installed, -ELIBBAD when it cannot be loaded or lacks a function. */
int gd_xml_open(struct gd_xml_api *api, const char *soname, struct gd_err *err);
/* Drops the reference gd_xml_open took (the library stays mapped). */
void gd_xml_close(struct gd_xml_api *api);

/* Frees what libxml2 allocated (xmlNodeGetContent, xmlGetProp). */
static inline void gd_xml_free(const struct gd_xml_api *api, void *p)
{
	(*api->free_var)(p);
}

#endif
