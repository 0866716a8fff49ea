// Command ferretdb-embedded runs FerretDB with its SQLite engine so that the billing service can use a
// real MongoDB wire-protocol server where no mongod binary can be had. It prints the connection URI on
// its first stdout line and exits when its stdin closes, so it never outlives the Node process that
// started it.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "TCP address to listen on")
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

	f, err := ferretdb.New(&ferretdb.Config{
		Listener:  ferretdb.ListenerConfig{TCP: *listen},
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

	fmt.Println(f.MongoDBURI())

	if err := <-done; err != nil && ctx.Err() == nil {
		fmt.Fprintln(os.Stderr, "ferretdb-embedded:", err)
		os.Exit(1)
	}
}
