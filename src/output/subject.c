/*
 * subject.c - finding subjects (subject.h).
 */
#include "output/subject.h"

#include <stdlib.h>
#include <string.h>

int gd_subject_gpu(const char *subject)
{
	char *end;
	long n;

	if (strncmp(subject, "gpu", 3) != 0 || subject[3] < '0' || subject[3] > '9')
		return -1;
	n = strtol(subject + 3, &end, 10);
	return (*end == '\0' || *end == ' ') && n < 64 ? (int)n : -1;
}
