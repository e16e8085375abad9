package store_test

import "syscall"

type syscallStat = syscall.Stat_t
