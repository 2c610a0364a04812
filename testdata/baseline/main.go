// Command baseline is the yardstick of rsx validate's speed (see BENCHMARKS.md,
// "Validate (whole process)"): the plain encoding/xml streaming loop — Token()
// and DecodeElement per <url> — over a Resource List, printing the entry count.
package main

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"os"
)

type link struct {
	Rel  string `xml:"rel,attr"`
	Href string `xml:"href,attr"`
}

type entry struct {
	Loc     string `xml:"loc"`
	Lastmod string `xml:"lastmod"`
	MD      struct {
		Hash   string `xml:"hash,attr"`
		Length string `xml:"length,attr"`
		Type   string `xml:"type,attr"`
	} `xml:"http://www.openarchives.org/rs/terms/ md"`
	Links []link `xml:"http://www.openarchives.org/rs/terms/ ln"`
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: baseline FILE")
		os.Exit(2)
	}
	f, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	defer f.Close()
	dec := xml.NewDecoder(bufio.NewReaderSize(f, 64<<10))
	n := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "url" {
			var e entry
			if err := dec.DecodeElement(&e, &se); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			n++
		}
	}
	fmt.Println(n, "entries")
}
