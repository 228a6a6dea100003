/* PID 1 of a local sandbox: the native controller (a static C program built once per machine, see _native.py).
 *
 * It implements exactly the protocol and guarantees of the Python controller in _agent.py, which stays as the
 * fallback where this program cannot be built; read that module's docstring for the why of each step. In short:
 * non-dumpable, no_new_privs, no signal handler (as the init of its PID namespace it ignores every signal sent
 * from inside), commands get /dev/null, the output pipe and nothing else, raise their own oom_score_adj, join the
 * commands' memory cgroup, and everything but PID 1 (and a living python-tool interpreter, left stopped) is killed
 * and reaped after each command.
 *
 * argv: out_fd st_fd "cg_fds" rlimits iso|unsafe "<uid>:<uid>"|"" "cmd_cg_fds" worker_source
 * or, on the host: --launch <n> program args... (keeps descriptors 0 .. 2+n, closes the rest, execs program)
 * stdin: 'R' len8 command | 'P' len8 source | 'K'.  status pipe: "ready <pid>", "<rc>" per command,
 * "<rc> <alive> <restarted>" per cell.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT 47
#define PR_CAP_AMBIENT_CLEAR_ALL 4
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif

#define MAX_FDS 16
#define START_CAPS ((1u << 5) | (1u << 6) | (1u << 7) | (1u << 8)) /* KILL, SETGID, SETUID, SETPCAP */

static int out_fd, st_fd, null_fd, iso, has_ids, last_cap = 40;
static unsigned ids[2];
static int cmd_cg[MAX_FDS], n_cmd_cg;
static struct { int res; rlim_t value; } limits[8];
static int n_limits;
static const char *ws = "/workspace";
static const char *worker_src = "";
static pid_t worker_pid = -1; /* the python tool's interpreter while one lives */
static int worker_req = -1, worker_res = -1, worker_starts;
static pid_t watched = -1;    /* the running command: settle() keeps its status when it reaps it */
static int watched_status, watched_reaped;

static int parse_fds(const char *s, int *fds) {
    int n = 0;
    char *end;
    while (*s && n < MAX_FDS) {
        long v = strtol(s, &end, 10);
        if (end == s) { s++; continue; }
        fds[n++] = (int)v;
        s = end;
    }
    return n;
}

static void parse_limits(const char *s) {
    static const struct { const char *name; int res; } table[] = {
        {"CORE", RLIMIT_CORE}, {"FSIZE", RLIMIT_FSIZE}, {"CPU", RLIMIT_CPU}, {"NPROC", RLIMIT_NPROC},
        {"AS", RLIMIT_AS}, {"NOFILE", RLIMIT_NOFILE}, {"DATA", RLIMIT_DATA}, {"STACK", RLIMIT_STACK}};
    while (*s && n_limits < 8) {
        const char *eq = strchr(s, '='), *comma = strchr(s, ',');
        if (!eq) break;
        for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
            if ((size_t)(eq - s) == strlen(table[i].name) && !strncmp(s, table[i].name, eq - s)) {
                limits[n_limits].res = table[i].res;
                limits[n_limits++].value = (rlim_t)strtoull(eq + 1, NULL, 10);
            }
        if (!comma) break;
        s = comma + 1;
    }
}

static void write_all(int fd, const char *buf, size_t n) {
    while (n) {
        ssize_t w = write(fd, buf, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return;
        buf += w;
        n -= (size_t)w;
    }
}

static void status_line(const char *fmt, int a, int b, int c) {
    char line[64];
    int n = snprintf(line, sizeof line, fmt, a, b, c);
    write_all(st_fd, line, (size_t)n);
}

static void sleep_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void read_exact(void *dst, size_t n) {
    char *p = dst;
    while (n) {
        ssize_t r = read(0, p, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) _exit(0); /* the host is gone */
        p += r;
        n -= (size_t)r;
    }
}

static char *read_frame(size_t *len) {
    unsigned char hdr[8];
    read_exact(hdr, 8);
    uint64_t n = 0;
    for (int i = 0; i < 8; i++) n = (n << 8) | hdr[i];
    char *buf = malloc(n + 1);
    if (!buf) _exit(5);
    read_exact(buf, n);
    buf[n] = 0;
    *len = n;
    return buf;
}

static int capset_caps(unsigned eff_perm) {
    struct { uint32_t version; int pid; } hdr = {0x20080522, 0};
    struct { uint32_t eff, perm, inh; } data[2] = {{eff_perm, eff_perm, 0}, {0, 0, 0}};
    return (int)syscall(SYS_capset, &hdr, data);
}

static void settle(void);

static void kill_all(pid_t pid) {
    if (iso) settle();
    else if (pid > 0) killpg(pid, SIGKILL);
}

static void note_reaped(pid_t got, int status) {
    if (got == watched) { watched_status = status; watched_reaped = 1; }
}

static void reap(pid_t pid) {
    /* unisolated mode: wait (max ~2 s) until the killed command's group leader is gone */
    double deadline = now() + 2.0;
    while (now() < deadline) {
        int status;
        pid_t got = waitpid(pid, &status, WNOHANG);
        if (got < 0) return;
        if (got > 0) { note_reaped(got, status); return; }
        sleep_ms(2);
    }
}

static void drop_worker(void) {
    if (worker_pid > 0) {
        close(worker_req);
        close(worker_res);
    }
    worker_pid = -1;
    worker_req = worker_res = -1;
}

static void settle(void) {
    /* every process but PID 1 and the worker killed and reaped (the worker is left stopped). Each pass lists the
       sandbox's /proc, stops every live process (so none forks while the rest are signalled), then kills them;
       passes repeat until one finds none. Never kill(-1): the kernel walks every process of the host for it, so
       a command's end would cost more with every other sandbox alive */
    static pid_t pids[4096];
    for (int pass = 0; pass < 1000; pass++) {
        int n = 0;
        DIR *d = opendir("/proc");
        struct dirent *e;
        while (d && (e = readdir(d)) && n < (int)(sizeof pids / sizeof pids[0])) {
            char *end;
            long pid = strtol(e->d_name, &end, 10);
            if (*end || end == e->d_name || pid == 1 || pid == worker_pid) continue;
            char path[64], stat[512];
            snprintf(path, sizeof path, "/proc/%ld/stat", pid);
            int fd = open(path, O_RDONLY | O_CLOEXEC);
            if (fd < 0) continue;
            ssize_t got = read(fd, stat, sizeof stat - 1);
            close(fd);
            if (got <= 0) continue;
            stat[got] = 0;
            char *paren = strrchr(stat, ')');
            if (paren && (paren[2] == 'Z' || paren[2] == 'X')) continue; /* a zombie: reaped below */
            pids[n++] = (pid_t)pid;
        }
        if (d) closedir(d);
        if (worker_pid > 0) kill(worker_pid, SIGSTOP); /* waits, stopped, for its next cell */
        for (int i = 0; i < n; i++) kill(pids[i], SIGSTOP);
        for (int i = 0; i < n; i++) kill(pids[i], SIGKILL);
        for (;;) {
            int status;
            pid_t got = waitpid(-1, &status, WNOHANG);
            if (got <= 0) break;
            if (got == worker_pid) drop_worker();
            else note_reaped(got, status);
        }
        if (!n) return;
        sleep_ms(1);
    }
}

static void finish_command(pid_t pid) {
    /* after a command: nothing of it may run on; a living worker survives, stopped */
    if (iso) settle();
    else { kill_all(pid); reap(pid); }
}

static void prepare(int keep_worker_pipes) {
    /* what every process the controller starts goes through: its cgroup, session, descriptors, limits, uid */
    for (int i = 0; i < n_cmd_cg; i++) write(cmd_cg[i], "0", 1); /* first: memory charged to the commands */
    signal(SIGPIPE, SIG_DFL);
    setsid();
    dup2(null_fd, 0);
    dup2(out_fd, 1);
    dup2(out_fd, 2);
    if (keep_worker_pipes) { dup2(900, 3); dup2(901, 4); }
    int first = keep_worker_pipes ? 5 : 3;
    if (syscall(SYS_close_range, first, ~0u, 0) != 0)
        for (int fd = first; fd < 65536; fd++) close(fd);
    for (int i = 0; i < n_limits; i++) {
        struct rlimit rl = {limits[i].value, limits[i].value};
        setrlimit(limits[i].res, &rl);
    }
    if (has_ids) prctl(PR_SET_DUMPABLE, 1, 0, 0, 0); /* /proc/self must be ours to write oom_score_adj */
    int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
    if (fd >= 0) { write(fd, "1000", 4); close(fd); }
    if (has_ids) {
        for (int cap = 0; cap <= last_cap; cap++) prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
        if (prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) != 0 || prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0)
            _exit(126);
        if (setgroups(0, NULL) != 0 || setresgid(ids[1], ids[1], ids[1]) != 0 ||
            setresuid(ids[1], ids[1], ids[1]) != 0)
            _exit(126); /* never run a command with the controller's uid */
    }
    if (chdir(ws) != 0) _exit(126);
}

static int pidfd_of(pid_t pid) {
    return (int)syscall(SYS_pidfd_open, pid, 0); /* -1 on an old kernel: the wait loops poll instead */
}

static int kill_requested(pid_t pid) {
    /* one control byte from the host: 1 for a kill request; the host gone ends the sandbox */
    char req;
    ssize_t r;
    do r = read(0, &req, 1); while (r < 0 && errno == EINTR);
    if (r <= 0) { kill_all(pid); _exit(0); }
    return req == 'K';
}

static int start_worker(void) {
    int req[2], res[2];
    if (pipe(req) != 0) return -1;
    if (pipe(res) != 0) { close(req[0]); close(req[1]); return -1; }
    pid_t pid = fork();
    if (pid < 0) { close(req[0]); close(req[1]); close(res[0]); close(res[1]); return -1; }
    if (pid == 0) {
        dup2(req[0], 900);
        dup2(res[1], 901);
        prepare(1);
        prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0); /* never outlive the controller */
        execlp("python3", "python3", "-u", "-c", worker_src, (char *)NULL);
        _exit(127);
    }
    close(req[0]);
    close(res[1]);
    fcntl(req[1], F_SETFL, O_NONBLOCK);
    fcntl(req[1], F_SETFD, FD_CLOEXEC);
    fcntl(res[0], F_SETFD, FD_CLOEXEC);
    worker_pid = pid;
    worker_req = req[1];
    worker_res = res[0];
    return 0;
}

static int exit_code(int status) {
    /* like os.waitstatus_to_exitcode, then 128+N for a signal */
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return WEXITSTATUS(status);
}

static void run_python(char *code, size_t len) {
    int fresh = worker_pid < 0, rc = -2;
    if (fresh) {
        if (start_worker() != 0) {
            finish_command(0);
            const char *msg = "error: the sandbox could not start the python interpreter (no process slot left)\n";
            write_all(out_fd, msg, strlen(msg));
            status_line("%d %d %d\n", 126, 0, 0);
            return;
        }
        worker_starts++;
    } else {
        kill(worker_pid, SIGCONT);
    }
    pid_t pid = worker_pid;
    size_t total = 8 + len, sent = 0;
    char *pending = malloc(total);
    if (!pending) _exit(5);
    for (int i = 0; i < 8; i++) pending[i] = (char)((uint64_t)len >> (56 - 8 * i));
    memcpy(pending + 8, code, len);
    int pfd = pidfd_of(pid);
    char line[64];
    size_t got_line = 0;
    while (rc == -2) {
        struct pollfd fds[4] = {{0, POLLIN, 0}, {worker_res, POLLIN, 0}, {pfd, POLLIN, 0},
                                {sent < total ? worker_req : -1, POLLOUT, 0}};
        if (poll(fds, 4, pfd < 0 ? 50 : -1) < 0 && errno != EINTR) break;
        if (fds[3].revents & (POLLOUT | POLLERR | POLLHUP)) {
            ssize_t w = write(worker_req, pending + sent, total - sent > 65536 ? 65536 : total - sent);
            if (w > 0) sent += (size_t)w;
            else if (w < 0 && errno != EAGAIN) sent = total; /* the interpreter is gone: its exit is seen below */
        }
        if ((fds[0].revents & (POLLIN | POLLHUP)) && kill_requested(pid)) { rc = 124; break; }
        if (fds[1].revents & (POLLIN | POLLHUP)) {
            ssize_t r = read(worker_res, line + got_line, sizeof line - 1 - got_line);
            if (r > 0) {
                got_line += (size_t)r;
                char *nl = memchr(line, '\n', got_line);
                if (nl) { rc = (nl == line + 1 && line[0] == '0') ? 0 : 1; break; }
                if (got_line >= sizeof line - 1) { rc = 1; break; }
            } else if (r == 0) { rc = -1; break; } /* it closed its result pipe: exited or broke its plumbing */
        }
        if (pfd >= 0 ? (fds[2].revents & POLLIN) != 0 : waitpid(pid, NULL, WNOHANG | WNOWAIT | __WALL) > 0) {
            rc = -1;
            break;
        }
    }
    free(pending);
    if (pfd >= 0) close(pfd);
    if (rc == 124 || rc == -1 || rc == -2) {
        int status = SIGKILL;
        kill(pid, SIGKILL);
        if (waitpid(pid, &status, 0) != pid) status = SIGKILL;
        drop_worker();
        if (rc != 124) rc = exit_code(status);
    }
    if (iso) settle();
    status_line("%d %d %d\n", rc, worker_pid > 0, fresh && worker_starts > 1); /* status, alive, restarted */
}

static void run_command(char *cmd) {
    pid_t pid = fork();
    if (pid < 0) {
        finish_command(0);
        const char *msg = "error: the sandbox could not start the command (no process slot left)\n";
        write_all(out_fd, msg, strlen(msg));
        status_line("%d\n", 126, 0, 0);
        return;
    }
    if (pid == 0) {
        prepare(0);
        execl("/bin/bash", "bash", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    watched = pid;
    watched_reaped = 0;
    int pfd = pidfd_of(pid), rc = -1;
    while (rc < 0) {
        struct pollfd fds[2] = {{0, POLLIN, 0}, {pfd, POLLIN, 0}};
        poll(fds, 2, pfd < 0 ? 50 : -1);
        if ((fds[0].revents & (POLLIN | POLLHUP)) && kill_requested(pid)) {
            if (iso) settle();
            else kill_all(pid);
        }
        int status;
        pid_t got = watched_reaped ? pid : waitpid(pid, &status, WNOHANG);
        if (watched_reaped) rc = exit_code(watched_status); /* settle() reaped it */
        else if (got == pid) rc = exit_code(status);
        else if (got < 0 && errno == ECHILD) rc = 128 + SIGKILL;
    }
    if (pfd >= 0) close(pfd);
    finish_command(pid);
    watched = -1;
    status_line("%d\n", rc, 0, 0);
}

static int launch(int argc, char **argv) {
    /* on the host: keep descriptors 0 .. 2+n, close every other one (an inheritable descriptor of the caller's
       process must not reach bwrap or the sandbox), then become the given program */
    if (argc < 4) return 2;
    unsigned n = (unsigned)atoi(argv[2]);
    if (syscall(SYS_close_range, 3 + n, ~0u, 0) != 0) {
        long max = sysconf(_SC_OPEN_MAX);
        for (long fd = 3 + n; fd < (max > 0 ? max : 65536); fd++) close((int)fd);
    }
    execv(argv[3], argv + 3);
    return 127;
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "--launch")) return launch(argc, argv);
    if (argc < 6) return 2;
    out_fd = atoi(argv[1]);
    st_fd = atoi(argv[2]);
    int cg[MAX_FDS], n_cg = parse_fds(argv[3], cg);
    parse_limits(argv[4]);
    iso = !strcmp(argv[5], "iso");
    has_ids = argc > 6 && argv[6][0] && sscanf(argv[6], "%u:%u", &ids[0], &ids[1]) == 2;
    if (argc > 7) n_cmd_cg = parse_fds(argv[7], cmd_cg);
    if (argc > 8) { /* kept off /proc/1/cmdline: commands' `ps` shows the controller's arguments, not a script */
        worker_src = strdup(argv[8]);
        if (!worker_src) _exit(5);
        memset(argv[8], 0, strlen(argv[8]));
    }
    signal(SIGPIPE, SIG_IGN); /* a host gone shows as EPIPE; SIG_IGN is not a handler and is reset for commands */
    if (has_ids) {
        FILE *f = fopen("/proc/sys/kernel/cap_last_cap", "re");
        if (!f || fscanf(f, "%d", &last_cap) != 1) _exit(4);
        fclose(f);
        if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) != 0 || setgroups(0, NULL) != 0 ||
            setresgid(ids[0], ids[0], ids[0]) != 0 || setresuid(ids[0], ids[0], ids[0]) != 0 ||
            capset_caps(START_CAPS) != 0 || prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0)
            _exit(4); /* never run a command as the namespace's root: the host sees a dead sandbox */
    }
    /* 'ready' first: the host stages the task files meanwhile, and it sends no command before start() returned */
    status_line("ready %d\n", (int)getpid(), 0, 0);
    if (iso && prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) _exit(3); /* never reachable through /proc/1 */
    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    for (int i = 0; i < n_cg; i++) { /* joined only now: a cgroup-v1 migration overlaps with the staging */
        write(cg[i], "0", 1);
        close(cg[i]);
    }
    null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    const char *w = getenv("WORKSPACE");
    if (w && *w) ws = w;
    for (;;) {
        char kind;
        ssize_t r = read(0, &kind, 1);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        if (kind != 'R' && kind != 'P') continue; /* a late kill request for a command that already ended */
        size_t len;
        char *data = read_frame(&len);
        if (kind == 'P') run_python(data, len);
        else run_command(data);
        free(data);
    }
    return 0;
}
