// Command ferretdb-embedded runs FerretDB with its SQLite engine so that the billing service can use a
// real MongoDB wire-protocol server where no mongod binary can be had. It prints the connection URI on
// its first stdout line and exits when its stdin closes, so it never outlives the Node process that
// started it. Given --unix, it listens on that Unix socket instead of TCP: the driver's writes to it cost the
// kernel far less CPU than loopback TCP's (docs/decisions.md, "The embedded FerretDB over a Unix socket").
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"os/signal"
	"syscall"

	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "TCP address to listen on")
	unix := flag.String("unix", "", "Unix socket path to listen on instead of TCP")
	dataDir := flag.String("data", "", "directory that holds the SQLite files (required)")
	logLevel := flag.String("log-level", "error", "debug, info, warn or error")
	flag.Parse()

	if *dataDir == "" {
		fmt.Fprintln(os.Stderr, "ferretdb-embedded: --data is required")
		os.Exit(2)
	}
	if err := os.MkdirAll(*dataDir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "ferretdb-embedded:", err)
		os.Exit(1)
	}

	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		fmt.Fprintln(os.Stderr, "ferretdb-embedded: bad --log-level:", err)
		os.Exit(2)
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	listener := ferretdb.ListenerConfig{TCP: *listen}
	if *unix != "" {
		listener = ferretdb.ListenerConfig{Unix: *unix}
	}
	f, err := ferretdb.New(&ferretdb.Config{
		Listener:  listener,
		Logger:    logger,
		Handler:   "sqlite",
		SQLiteURL: "file:" + *dataDir + "/",
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "ferretdb-embedded:", err)
		os.Exit(1)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	// The parent holds our stdin open for as long as it wants us alive.
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		stop()
	}()

	done := make(chan error, 1)
	go func() { done <- f.Run(ctx) }()

	fmt.Println(mongoDBURI(f, *unix))

	if err := <-done; err != nil && ctx.Err() == nil {
		fmt.Fprintln(os.Stderr, "ferretdb-embedded:", err)
		os.Exit(1)
	}
}

// mongoDBURI waits until FerretDB listens and returns its URI. For a Unix socket the driver wants the path
// percent-encoded as the host (mongodb://%2Ftmp%2Fx.sock/), which FerretDB's own URI does not do.
func mongoDBURI(f *ferretdb.FerretDB, unix string) string {
	uri := f.MongoDBURI()
	if unix == "" {
		return uri
	}
	return "mongodb://" + url.PathEscape(unix) + "/"
}
