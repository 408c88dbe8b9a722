// The floor of one extra process hop: a relay that does nothing but copy
// bytes, stdin -> the child's stdin and the child's stdout -> stdout, with one
// epoll_wait, one read and one write per message and direction. The tool-call
// bench runs its bare client through it (RELAY=path): the rate it gets is the
// best any design that passes each message through another process can do on
// the machine, the harness included (it adds its censor and bookkeeping).
//   cc -O2 -o hop_relay hop_relay.c && ./hop_relay node server.js stdio
#include <stdio.h>
#include <sys/epoll.h>
#include <unistd.h>

static int copy(int from, int to) {
  static char buf[1 << 16];
  ssize_t got = read(from, buf, sizeof buf);
  if (got <= 0) return -1;
  for (ssize_t done = 0; done < got;) {
    ssize_t put = write(to, buf + done, (size_t)(got - done));
    if (put <= 0) return -1;
    done += put;
  }
  return 0;
}

int main(int argc, char** argv) {
  int to_child[2], from_child[2];
  if (argc < 2 || pipe(to_child) != 0 || pipe(from_child) != 0) {
    fprintf(stderr, "usage: hop_relay command [args...]\n");
    return 2;
  }
  if (fork() == 0) {
    dup2(to_child[0], 0);
    dup2(from_child[1], 1);
    close(to_child[1]);
    close(from_child[0]);
    execvp(argv[1], argv + 1);
    _exit(127);
  }
  close(to_child[0]);
  close(from_child[1]);
  int poller = epoll_create1(0);
  struct epoll_event in = {.events = EPOLLIN, .data.fd = 0}, out = {.events = EPOLLIN, .data.fd = from_child[0]};
  epoll_ctl(poller, EPOLL_CTL_ADD, 0, &in);
  epoll_ctl(poller, EPOLL_CTL_ADD, from_child[0], &out);
  for (;;) {
    struct epoll_event ready[2];
    int n = epoll_wait(poller, ready, 2, -1);
    for (int i = 0; i < n; i++) {
      int from = ready[i].data.fd;
      if (copy(from, from == 0 ? to_child[1] : 1) != 0) return 0;
    }
  }
}
